#!/bin/sh
# Make a few of Debian's Python packages visible inside a venv, and nothing else of Debian's.
#
#     systemd/debian-modules.sh VENV [PACKAGE ...]    (default: python3-icu python3-lgpio)
#
# These come from Debian (Raspberry Pi OS), never from pip:
#   python3-icu    PyICU, prebuilt against the system's libicu: pip would compile it for minutes
#                  (an hour on a Pi Zero), and the one pip builds must match libicu anyway.
#   python3-lgpio  gpiozero's pin library on a Pi. PyPI has no wheel for Python 3.13, and pip may
#                  pick lgpio 0.0.0.2, an empty stub (gpiozero #1115). Raspberry Pi OS ships it.
# Each package's top-level files in /usr/lib/python3/dist-packages (its modules and its
# metadata, read from `dpkg -L`) are linked into VENV/debian-modules, which a .pth file puts on
# the venv's path after its own site-packages: the pinned packages of the lock always win, and
# Debian's other packages (its gpiozero, its pygame) stay out of sight. A package that is not
# installed is skipped with a note; a linked one that does not import stops the script.
set -eu

VENV=${1:?usage: debian-modules.sh VENV [PACKAGE ...]}
shift
[ $# -gt 0 ] || set -- python3-icu python3-lgpio
PY=$VENV/bin/python
DEST=$(cd "$VENV" && pwd)/debian-modules
DIST=/usr/lib/python3/dist-packages

SITE=$("$PY" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
mkdir -p "$DEST"
echo "$DEST" > "$SITE/debian-modules.pth"

for package in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        echo "debian-modules: $package is not installed here: skipped"
        continue
    fi
    # Only the entries directly under dist-packages: a module, a package folder, its metadata.
    dpkg -L "$package" | grep "^$DIST/[^/]*\$" | while read -r entry; do
        ln -sfn "$entry" "$DEST/$(basename "$entry")"
    done
    case "$package" in
        python3-icu) module=icu ;;
        python3-lgpio) module=lgpio ;;
        *) module=${package#python3-} ;;
    esac
    if ! "$PY" -c "import $module" 2>/dev/null; then
        echo "debian-modules: $package is installed, but $PY cannot import $module:" >&2
        echo "  it is built for Debian's own Python; make the venv with /usr/bin/python3" >&2
        exit 1
    fi
    echo "debian-modules: $package -> $DEST ($module imports)"
done
