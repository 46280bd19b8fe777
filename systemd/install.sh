#!/bin/sh
# Install (or upgrade in place) the Question Block companion as a systemd service on
# Raspberry Pi OS trixie Lite (bookworm too; Desktop: see systemd/README.md) or Debian. Run
# from a clone of the repository:
#
#     sudo ./systemd/install.sh             install or upgrade, enable and (re)start the service
#     ./systemd/install.sh --dry-run        print every step, change nothing
#     ./systemd/install.sh --dry-run --root DIR
#                                           the same, for the system whose root is DIR (its
#                                           users, os-release, venv and config are read there)
#     ./systemd/install.sh --root DIR       stage the files under DIR (no apt, user, venv or
#                                           systemctl: for checking what goes where)
#
# Idempotent: running it again upgrades the code and the unit, and keeps
# /etc/companion/companion.toml and the ledger in /var/lib/companion. The Python packages are
# the lock's (requirements/runtime.txt, with hashes): the Pi runs what CI tested.
set -eu

SRC=$(cd "$(dirname "$0")/.." && pwd)
DRY_RUN=0
ROOT=""
while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) DRY_RUN=1 ;;
        --root) ROOT=${2:?--root needs a folder}; shift ;;
        -h|--help) sed -n '2,17s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
    esac
    shift
done

# A dry run for another root reads that system's state and prints paths as it sees them.
CHECK_ROOT=""
if [ "$DRY_RUN" = 1 ] && [ -n "$ROOT" ]; then
    CHECK_ROOT=$ROOT
    ROOT=""
fi

USER_NAME=companion
PREFIX=$ROOT/opt/companion
VENV=$PREFIX/venv
ETC=$ROOT/etc/companion
CONFIG=$ETC/companion.toml
UNIT=$ROOT/etc/systemd/system/companion.service
UDEV_RULE=$ROOT/etc/udev/rules.d/99-companion-reader.rules
STATE=$ROOT/var/lib/companion
SERVICE_GROUPS="gpio audio dialout video"  # (not GROUPS: bash keeps that name for itself)
# python3-icu (player names) and python3-lgpio (the pins) come from Debian, linked into the venv
# alone (systemd/debian-modules.sh): a Pi Zero never compiles PyICU, and pip never picks PyPI's
# lgpio. gcc and libasound2-dev build simpleaudio where PyPI has no wheel for the Pi.
APT_PACKAGES="python3 python3-venv python3-dev gcc libasound2-dev alsa-utils python3-icu"
STAGE_ONLY=0
[ -n "$ROOT" ] && STAGE_ONLY=1

say() { printf '%s\n' "$*"; }
# The system being installed (or, for a dry run with --root, described).
exists() { [ -e "$CHECK_ROOT$1" ]; }
has_user() {
    if [ -n "$CHECK_ROOT" ]; then grep -q "^$1:" "$CHECK_ROOT/etc/passwd" 2>/dev/null
    else id "$1" >/dev/null 2>&1; fi
}
has_group() {
    if [ -n "$CHECK_ROOT" ]; then grep -q "^$1:" "$CHECK_ROOT/etc/group" 2>/dev/null
    else getent group "$1" >/dev/null; fi
}
codename() { (. "$CHECK_ROOT/etc/os-release" 2>/dev/null && echo "${VERSION_CODENAME:-}"); }
# A running udev and a running systemd: absent in a chroot, an image build or a container.
# (Another root is described as it will be once booted.)
udev_runs() {
    [ -n "$CHECK_ROOT" ] || { command -v udevadm >/dev/null 2>&1 && [ -S /run/udev/control ]; }
}
systemd_runs() { [ -n "$CHECK_ROOT" ] || [ -d /run/systemd/system ]; }
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
if [ "$STAGE_ONLY" = 0 ] && [ -z "$CHECK_ROOT" ] && ! command -v apt-get >/dev/null 2>&1; then
    echo "install.sh: this installer is for Raspberry Pi OS / Debian (apt-get not found)" >&2
    exit 1
fi
system apt-get update
# libglib2.0 (SDL's audio in the pygame-ce wheel) was renamed in trixie (64-bit time_t).
case "$(codename)" in
    bullseye|bookworm) APT_PACKAGES="$APT_PACKAGES libglib2.0-0" ;;
    *) APT_PACKAGES="$APT_PACKAGES libglib2.0-0t64" ;;
esac
# Raspberry Pi OS ships lgpio (gpiozero's pin library) as a Debian package; plain Debian may not.
if [ "$STAGE_ONLY" = 0 ]; then
    if [ -n "$CHECK_ROOT" ]; then
        ls "$CHECK_ROOT"/etc/apt/sources.list.d/raspi.* >/dev/null 2>&1 \
            && APT_PACKAGES="$APT_PACKAGES python3-lgpio"
    elif apt-cache show python3-lgpio >/dev/null 2>&1; then
        APT_PACKAGES="$APT_PACKAGES python3-lgpio"
    else
        say "python3-lgpio is not in this system's apt sources: no real pins (Raspberry Pi OS has it)"
    fi
fi
# shellcheck disable=SC2086
system env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $APT_PACKAGES

say "-- user $USER_NAME"
if [ "$STAGE_ONLY" = 1 ] || has_user "$USER_NAME"; then
    say "user $USER_NAME: $( [ "$STAGE_ONLY" = 1 ] && echo 'not created (--root)' || echo exists)"
else
    run useradd --system --user-group --home-dir /var/lib/companion --no-create-home \
        --shell /usr/sbin/nologin --comment "Question Block companion" "$USER_NAME"
fi
for group in $SERVICE_GROUPS; do
    if [ "$STAGE_ONLY" = 1 ]; then
        say "skip (--root): usermod -aG $group $USER_NAME"
    elif has_group "$group" || [ "$DRY_RUN" = 1 ]; then
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
    say "would copy: $SRC -> $PREFIX/src (without .venv*, .git, artifacts, caches, egg-info)"
else
    # Through a file, not a pipe: a failing copy must stop here (sh has no pipefail).
    ARCHIVE="$PREFIX/src.tar"
    (cd "$SRC" && tar --exclude='./.venv*' --exclude=./.git --exclude=./artifacts \
        --exclude=./.hypothesis --exclude=./.pytest_cache --exclude=./.ruff_cache \
        --exclude='*.egg-info' --exclude='*/__pycache__' -cf "$ARCHIVE" .)
    (cd "$PREFIX/src.new" && tar -xf "$ARCHIVE")
    rm -f "$ARCHIVE"
fi
run rm -rf "$PREFIX/src"
run mv "$PREFIX/src.new" "$PREFIX/src"

say "-- virtualenv $VENV"
PIP="$VENV/bin/pip --disable-pip-version-check"
if [ "$STAGE_ONLY" = 1 ]; then
    say "skip (--root): python3 -m venv $VENV; pip install the lock and $PREFIX/src"
    COMPANION="env PYTHONPATH=$SRC python3 -m companion"
else
    # A venv from before the lock saw all of Debian's packages: it is made anew.
    old_venv=0
    if exists "$VENV/pyvenv.cfg" && \
            grep -q '^include-system-site-packages = true' "$CHECK_ROOT$VENV/pyvenv.cfg"; then
        run rm -rf "$VENV"
        old_venv=1
    fi
    if [ "$old_venv" = 1 ] || ! exists "$VENV/bin/python"; then
        run python3 -m venv "$VENV"
    fi
    run sh "$PREFIX/src/systemd/debian-modules.sh" "$VENV"
    # shellcheck disable=SC2086
    {
        run $PIP install --quiet --require-hashes --no-deps -r "$PREFIX/src/requirements/build.txt"
        run $PIP install --quiet --require-hashes --no-deps --no-build-isolation \
            -r "$PREFIX/src/requirements/runtime.txt"
        run $PIP install --quiet --no-deps --no-build-isolation --force-reinstall "$PREFIX/src"
        run $PIP check
    }
    COMPANION="$VENV/bin/companion"
fi

say "-- config $CONFIG"
run mkdir -p "$ETC"
if exists "$CONFIG"; then
    say "keeping the existing config $CONFIG"
    # The block's default pin moved from GPIO 17 to 26 (issue 26): a config that names no
    # pin of its own now means 26.
    if ! awk '/^[[:space:]]*\[/ { s = $0; gsub(/[[:space:]]/, "", s) }
              s == "[block]" && /^[[:space:]]*pin[[:space:]]*=/ { found = 1 }
              END { exit !found }' "$CHECK_ROOT$CONFIG"; then
        say "note: the block's default pin is now GPIO 26 (physical pin 37); a block still wired to GPIO 17 needs [block] pin = 17 in $CONFIG"
    fi
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
# systemd's StateDirectory makes it at the first start; made now (same owner and mode), so
# `companion doctor` as the service's user can check it before that.
if exists "$STATE"; then
    say "the ledger stays in $STATE (systemd's StateDirectory; never touched by upgrades)"
elif [ "$STAGE_ONLY" = 1 ]; then
    say "skip (--root): install -d -o $USER_NAME -g $USER_NAME -m 0700 $STATE"
else
    run install -d -o "$USER_NAME" -g "$USER_NAME" -m 0700 "$STATE"
fi

say "-- udev rule for the card reader"
if exists "$UDEV_RULE"; then
    say "keeping the existing $UDEV_RULE"
else
    run mkdir -p "$(dirname "$UDEV_RULE")"
    run install -m 0644 "$SRC/hardware/99-companion-reader.rules" "$UDEV_RULE"
    if [ "$STAGE_ONLY" = 1 ]; then
        say "skip (--root): udevadm control --reload"
    elif udev_runs; then
        run udevadm control --reload || say "udev did not reload: the rule applies at the next boot"
    else
        say "udev is not running here (a chroot, an image build): the rule applies at the next boot"
    fi
fi

say "-- service $UNIT"
run mkdir -p "$(dirname "$UNIT")"
run install -m 0644 "$SRC/systemd/companion.service" "$UNIT"
if [ "$STAGE_ONLY" = 1 ] || systemd_runs; then
    system systemctl daemon-reload
    system systemctl enable companion.service
    system systemctl restart companion.service
else
    # Enabling works offline (it only makes a link); starting needs a running systemd.
    if command -v systemctl >/dev/null 2>&1; then
        run systemctl enable companion.service
    else  # no systemd installed at all: the link `systemctl enable` would make
        run mkdir -p "$ROOT/etc/systemd/system/multi-user.target.wants"
        run ln -sf /etc/systemd/system/companion.service \
            "$ROOT/etc/systemd/system/multi-user.target.wants/companion.service"
    fi
    say "systemd is not running here (a chroot, an image build): the service starts at the next boot"
fi

say "== done. Status: systemctl status companion; logs: journalctl -u companion -f;"
say "   checks: $COMPANION doctor --config $CONFIG"
