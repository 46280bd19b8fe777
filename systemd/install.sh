#!/bin/sh
# Install (or upgrade in place) the Question Block companion as a systemd service on
# Raspberry Pi OS Bookworm Lite (Desktop: see systemd/README.md) or Debian. Run from a clone of the repository:
#
#     sudo ./systemd/install.sh             install or upgrade, enable and (re)start the service
#     ./systemd/install.sh --dry-run        print every step, change nothing
#     ./systemd/install.sh --root DIR       stage the files under DIR (no apt, user, venv or
#                                           systemctl: for checking what goes where)
#
# Idempotent: running it again upgrades the code and the unit, and keeps
# /etc/companion/companion.toml and the ledger in /var/lib/companion.
set -eu

SRC=$(cd "$(dirname "$0")/.." && pwd)
DRY_RUN=0
ROOT=""
while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) DRY_RUN=1 ;;
        --root) ROOT=${2:?--root needs a folder}; shift ;;
        -h|--help) sed -n '2,11s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
    esac
    shift
done

USER_NAME=companion
PREFIX=$ROOT/opt/companion
VENV=$PREFIX/venv
ETC=$ROOT/etc/companion
CONFIG=$ETC/companion.toml
UNIT=$ROOT/etc/systemd/system/companion.service
UDEV_RULE=$ROOT/etc/udev/rules.d/99-companion-reader.rules
STATE=$ROOT/var/lib/companion
SERVICE_GROUPS="gpio audio dialout video"  # (not GROUPS: bash keeps that name for itself)
# python3-icu: Debian's prebuilt PyICU (player names), seen by the venv through
# --system-site-packages, so a Pi Zero never compiles it.
APT_PACKAGES="python3 python3-venv python3-dev gcc libasound2-dev alsa-utils python3-icu"
STAGE_ONLY=0
[ -n "$ROOT" ] && STAGE_ONLY=1

say() { printf '%s\n' "$*"; }
# The command as it can be pasted back into a shell: each word with a space or a quote in
# single quotes.
quoted() {
    out=""
    for word in "$@"; do
        case "$word" in
            *[!A-Za-z0-9_./:=@%+,-]*|"")
                word="'$(printf '%s' "$word" | sed "s/'/'\\\\''/g")'" ;;
        esac
        out="${out:+$out }$word"
    done
    printf '%s' "$out"
}
# Run a command, or only print it with --dry-run.
run() {
    if [ "$DRY_RUN" = 1 ]; then say "would run: $(quoted "$@")"
    else say "+ $(quoted "$@")"; "$@"; fi
}
# A step that needs the real system (apt, users, systemd): skipped when staging under --root.
system() {
    if [ "$STAGE_ONLY" = 1 ]; then say "skip (--root): $*"; else run "$@"; fi
}

if [ "$DRY_RUN" = 0 ] && [ "$STAGE_ONLY" = 0 ] && [ "$(id -u)" != 0 ]; then
    echo "install.sh: run it as root (sudo ./systemd/install.sh), or try --dry-run" >&2
    exit 1
fi

say "== companion installer: from $SRC"

say "-- apt packages"
if [ "$STAGE_ONLY" = 0 ] && ! command -v apt-get >/dev/null 2>&1; then
    echo "install.sh: this installer is for Raspberry Pi OS / Debian (apt-get not found)" >&2
    exit 1
fi
system apt-get update
if [ -e /etc/os-release ] && grep -q 'VERSION_CODENAME=trixie' /etc/os-release; then
    APT_PACKAGES="$APT_PACKAGES libglib2.0-0t64"
else
    APT_PACKAGES="$APT_PACKAGES libglib2.0-0"
fi
# Raspberry Pi OS ships lgpio (gpiozero's pin library on Bookworm) as a Debian package.
if [ "$STAGE_ONLY" = 0 ] && apt-cache show python3-lgpio >/dev/null 2>&1; then
    APT_PACKAGES="$APT_PACKAGES python3-lgpio"
fi
# shellcheck disable=SC2086
system env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $APT_PACKAGES

say "-- user $USER_NAME"
if [ "$STAGE_ONLY" = 1 ] || id "$USER_NAME" >/dev/null 2>&1; then
    say "user $USER_NAME: $( [ "$STAGE_ONLY" = 1 ] && echo 'not created (--root)' || echo exists)"
else
    run useradd --system --user-group --home-dir /var/lib/companion --no-create-home \
        --shell /usr/sbin/nologin --comment "Question Block companion" "$USER_NAME"
fi
for group in $SERVICE_GROUPS; do
    if [ "$STAGE_ONLY" = 1 ]; then
        say "skip (--root): usermod -aG $group $USER_NAME"
    elif getent group "$group" >/dev/null; then
        run usermod -aG "$group" "$USER_NAME"
    else
        say "group $group does not exist here: skipped"
    fi
done

say "-- code in $PREFIX"
run mkdir -p "$PREFIX"
run rm -rf "$PREFIX/src.new"
run mkdir -p "$PREFIX/src.new"
if [ "$DRY_RUN" = 1 ]; then
    say "would copy: $SRC -> $PREFIX/src (without .venv, .git, artifacts, caches, egg-info)"
else
    # Through a file, not a pipe: a failing copy must stop here (sh has no pipefail).
    ARCHIVE="$PREFIX/src.tar"
    (cd "$SRC" && tar --exclude=./.venv --exclude=./.git --exclude=./artifacts \
        --exclude=./.hypothesis --exclude=./.pytest_cache --exclude=./.ruff_cache \
        --exclude='*.egg-info' --exclude='*/__pycache__' -cf "$ARCHIVE" .)
    (cd "$PREFIX/src.new" && tar -xf "$ARCHIVE")
    rm -f "$ARCHIVE"
fi
run rm -rf "$PREFIX/src"
run mv "$PREFIX/src.new" "$PREFIX/src"

say "-- virtualenv $VENV"
if [ "$STAGE_ONLY" = 1 ]; then
    say "skip (--root): python3 -m venv --system-site-packages $VENV; pip install $PREFIX/src"
    COMPANION="env PYTHONPATH=$SRC python3 -m companion"
else
    [ -x "$VENV/bin/python" ] || run python3 -m venv --system-site-packages "$VENV"
    run "$VENV/bin/pip" install --quiet --upgrade pip
    run "$VENV/bin/pip" install --quiet --upgrade "$PREFIX/src"
    COMPANION="$VENV/bin/companion"
fi

say "-- config $CONFIG"
run mkdir -p "$ETC"
if [ -e "$CONFIG" ]; then
    say "keeping the existing config $CONFIG"
elif [ "$DRY_RUN" = 1 ]; then
    say "would write: the example config (companion config) to $CONFIG"
else
    say "+ companion config > $CONFIG"
    $COMPANION config > "$CONFIG.new"
    mv "$CONFIG.new" "$CONFIG"
fi
# Readable by the service, not by everyone: it may hold the table token.
if [ "$STAGE_ONLY" = 1 ]; then
    say "skip (--root): chown root:$USER_NAME $CONFIG; chmod 0640"
elif [ "$DRY_RUN" = 1 ]; then
    say "would run: chown root:$USER_NAME $CONFIG; chmod 0640 $CONFIG"
else
    run chown "root:$USER_NAME" "$CONFIG"
    run chmod 0640 "$CONFIG"
fi
if [ "$DRY_RUN" = 0 ] && ! $COMPANION config --check --config "$CONFIG"; then
    say "!! $CONFIG has a problem (above): fix it, then: sudo systemctl restart companion"
fi

say "-- ledger $STATE"
say "the ledger stays in $STATE (systemd's StateDirectory; never touched by upgrades)"

say "-- udev rule for the card reader"
if [ -e "$UDEV_RULE" ]; then
    say "keeping the existing $UDEV_RULE"
else
    run mkdir -p "$(dirname "$UDEV_RULE")"
    run install -m 0644 "$SRC/hardware/99-companion-reader.rules" "$UDEV_RULE"
    system udevadm control --reload
fi

say "-- service $UNIT"
run mkdir -p "$(dirname "$UNIT")"
run install -m 0644 "$SRC/systemd/companion.service" "$UNIT"
system systemctl daemon-reload
system systemctl enable companion.service
system systemctl restart companion.service

say "== done. Status: systemctl status companion; logs: journalctl -u companion -f;"
say "   checks: $COMPANION doctor --config $CONFIG"
