#!/bin/sh
# Prepare a real Linux kernel for the machine tier: Debian trixie's amd64 kernel, the few modules the
# guest needs (decompressed), gpio-sim built out of tree, and a busybox initramfs that boots the
# host's own root read-only over 9p (see init.sh beside this file and vm.py).
#
#   tests/machine/kernel.sh [CACHE]     CACHE defaults to ${PIBOX_CACHE:-~/.cache/companion/pibox}
#
# Output in CACHE/<kernel release>/: vmlinuz, modules/lib/modules/<release>/, initramfs.cpio.gz,
# ready. The last line printed is that directory. With its `ready` stamp present (and naming the
# same kernel.sh and init.sh, by hash) nothing is done.
# PIBOX_KERNEL=<release> (e.g. 6.12.118+deb13-amd64) picks a release instead of trixie's current one;
# PIBOX_REFRESH=1 looks trixie's current release up again.
# Needs (Debian packages): apt, dpkg, gcc, make, binutils, xz-utils, kmod, busybox-static.
# The host's apt sources are not touched: apt runs on a private state directory in CACHE.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${1:-${PIBOX_CACHE:-$HOME/.cache/companion/pibox}}
SUITE=trixie
SERIES=6.12
# Modules the guest loads (with their dependencies): the 9p root and its overlay, configfs for
# gpio-sim, snd-aloop for sound, virtio_net for user-mode networking. virtio_pci, the 8250 UART,
# virtio_console, tmpfs and devtmpfs are built into Debian's kernel.
MODULES="9p 9pnet_virtio overlay configfs snd-aloop snd-hrtimer virtio_net"
# Loaded by the initramfs before the root is mounted (their dependencies come along).
EARLY_MODULES="9pnet_virtio 9p overlay"

log() { echo "kernel.sh: $*" >&2; }
die() { log "$*"; exit 1; }

mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
# The stamp's content: an edit of this script or of init.sh rebuilds.
STAMP=$(cd "$HERE" && sha256sum kernel.sh init.sh)
is_ready() { [ -e "$1/ready" ] && [ "$(cat "$1/ready")" = "$STAMP" ]; }

# Fast path: the release prepared last time.
if [ -z "${PIBOX_REFRESH:-}" ]; then
    release=${PIBOX_KERNEL:-$(cat "$CACHE/current" 2>/dev/null || true)}
    if [ -n "$release" ] && is_ready "$CACHE/$release"; then
        echo "$CACHE/$release"
        exit 0
    fi
fi

# One build at a time per cache (test runs side by side share it): the second waits for the
# first, then takes the fast path above.
if [ -z "${PIBOX_LOCKED:-}" ]; then
    PIBOX_LOCKED=1 exec flock "$CACHE/.lock" sh "$0" "$CACHE"
fi

for tool in apt-get dpkg-deb gcc make readelf strip xz depmod modprobe gzip; do
    command -v "$tool" >/dev/null || die "missing $tool (apt-get install gcc make xz-utils kmod)"
done
BUSYBOX=${PIBOX_BUSYBOX:-/bin/busybox}
[ -x "$BUSYBOX" ] && ! readelf -d "$BUSYBOX" | grep -q NEEDED \
    || die "$BUSYBOX is not a static busybox (apt-get install busybox-static)"

# --- a private apt for trixie ------------------------------------------------------------------
APT=$CACHE/apt
mkdir -p "$APT/state/lists/partial" "$APT/cache/archives/partial"
# Signed by the keys in bookworm's debian-archive-keyring (it carries trixie's since 2023.3).
cat >"$APT/sources.list" <<EOF
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $SUITE main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security $SUITE-security main
EOF
apt_private() {
    # Dir::State::status=/dev/null: resolve against an empty system, not the host's packages.
    # As root apt would hand downloads to the _apt user, who cannot write in CACHE.
    "$@" -q -o Dir::Etc::SourceList="$APT/sources.list" -o Dir::Etc::SourceParts=/dev/null \
        -o Dir::State="$APT/state" -o Dir::State::status=/dev/null -o Dir::Cache="$APT/cache" \
        -o APT::Sandbox::User="$(id -un)"
}
log "apt-get update ($SUITE, private state in $APT)"
apt_private apt-get update >&2

if [ -n "${PIBOX_KERNEL:-}" ]; then
    release=$PIBOX_KERNEL
else
    release=$(apt_private apt-cache depends linux-image-amd64 \
        | sed -n 's/^ *Depends: linux-image-\(.*-amd64\)$/\1/p' | head -n1)
    [ -n "$release" ] || die "cannot find $SUITE's linux-image-amd64"
fi
abi=${release%-amd64}                                  # 6.12.118+deb13
OUT=$CACHE/$release
if is_ready "$OUT"; then
    echo "$release" >"$CACHE/current"
    echo "$OUT"
    exit 0
fi
version=$(apt_private apt-cache show --no-all-versions "linux-headers-$release" \
    | sed -n 's/^Version: //p')                          # 6.12.118-1
log "kernel $release (package version $version)"

WORK=$CACHE/$release.work
rm -rf "$WORK" "$OUT"
mkdir -p "$WORK/debs" "$WORK/root" "$OUT"
(cd "$WORK/debs" && apt_private apt-get download \
    "linux-image-$release-unsigned" "linux-headers-$release" "linux-headers-$abi-common" \
    "linux-kbuild-$abi" "linux-source-$SERIES=$version" >&2)
R=$WORK/root
for deb in "$WORK"/debs/linux-headers-*.deb "$WORK"/debs/linux-kbuild-*.deb \
           "$WORK"/debs/linux-image-*.deb; do
    dpkg-deb -x "$deb" "$R"
done
cp "$R/boot/vmlinuz-$release" "$OUT/vmlinuz"

# --- gpio-sim, built out of tree -----------------------------------------------------------------
# Debian builds the kernel without CONFIG_GPIO_SIM and CONFIG_IRQ_SIM. Build both sources as one
# module against the headers: gpio-sim.c (+ its private gpiolib.h) and irq_sim.c.
SRC=$WORK/src
mkdir -p "$SRC"
dpkg-deb --fsys-tarfile "$WORK"/debs/linux-source-*.deb \
    | tar -xO "./usr/src/linux-source-$SERIES.tar.xz" \
    | tar -xJ -C "$SRC" --strip-components=1 "linux-source-$SERIES/drivers/gpio/gpio-sim.c" \
        "linux-source-$SERIES/drivers/gpio/gpiolib.h" "linux-source-$SERIES/kernel/irq/irq_sim.c"
BUILD=$WORK/gpio-sim
mkdir -p "$BUILD"
cp "$SRC/drivers/gpio/gpio-sim.c" "$BUILD/gpio-sim-main.c"
cp "$SRC/drivers/gpio/gpiolib.h" "$BUILD/"
# irq_sim's symbols stay inside this module (no exports that could clash), and irq_to_desc() is
# not exported to modules: generic_handle_irq() does the same from the irq_work (hard irq context).
sed -e '/^EXPORT_SYMBOL_GPL(/d' \
    -e 's/handle_simple_irq(irq_to_desc(\([a-z_]*\)))/generic_handle_irq(\1)/' \
    "$SRC/kernel/irq/irq_sim.c" >"$BUILD/irq_sim.c"
grep -q 'generic_handle_irq(' "$BUILD/irq_sim.c" || die "irq_sim.c changed: patch no longer applies"
printf 'obj-m := gpio-sim.o\ngpio-sim-y := gpio-sim-main.o irq_sim.o\n' >"$BUILD/Kbuild"

HEADERS=$R/usr/src/linux-headers-$release
KBUILD=$R/usr/lib/linux-kbuild-$abi
# The headers' Makefile includes the -common tree by absolute path: point it at our copy.
echo "include $R/usr/src/linux-headers-$abi-common/Makefile" >"$HEADERS/Makefile"

# trixie's modpost and objtool need glibc 2.38; an older host runs them with trixie's own libc
# through its dynamic loader (a wrapper script in place of each binary).
needs_newer_libc() { "$1" 2>&1 | grep -q "GLIBC_.* not found"; }
if needs_newer_libc "$KBUILD/scripts/mod/modpost.real-lsb-64" \
        || needs_newer_libc "$KBUILD/tools/objtool/objtool.real-x86"; then
    log "host glibc too old for $SUITE's kbuild tools: running them with $SUITE's libc"
    mkdir -p "$WORK/libdebs"
    (cd "$WORK/libdebs" && apt_private apt-get download libc6 libelf1t64 zlib1g libzstd1 >&2)
    for deb in "$WORK"/libdebs/*.deb; do dpkg-deb -x "$deb" "$WORK/runtime"; done
    LIBS=$WORK/runtime/usr/lib/x86_64-linux-gnu
    for bin in "$KBUILD/scripts/mod/modpost.real-lsb-64" "$KBUILD/tools/objtool/objtool.real-x86"; do
        mv "$bin" "$bin.$SUITE"
        printf '#!/bin/sh\nexec %s/ld-linux-x86-64.so.2 --library-path %s "$0.%s" "$@"\n' \
            "$LIBS" "$LIBS" "$SUITE" >"$bin"
        chmod +x "$bin"
    done
fi

# Debian builds with gcc-14. With an older gcc: -fmin-function-alignment (gcc 14) falls back to
# -falign-functions, which the kernel's Makefile does itself when the flag is missing.
make_flags=""
if ! command -v x86_64-linux-gnu-gcc-14 >/dev/null; then
    make_flags="CC=gcc CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT="
    log "building with $(gcc -dumpfullversion) instead of gcc-14"
fi
# No BTF for the module: it needs pahole, and nothing here reads it.
# shellcheck disable=SC2086
make -s -C "$HEADERS" M="$BUILD" $make_flags CONFIG_DEBUG_INFO_BTF_MODULES= modules >&2

# --- the modules tree ----------------------------------------------------------------------------
FULL=$R/usr/lib/modules/$release                    # trixie ships modules under /usr/lib
depmod -b "$R/usr" "$release"
MODS=$OUT/modules/lib/modules/$release
mkdir -p "$MODS/updates"
for f in modules.builtin modules.builtin.modinfo modules.order; do cp "$FULL/$f" "$MODS/"; done
# Each wanted module and its dependencies, decompressed: busybox's insmod reads no .ko.xz.
for name in $MODULES; do
    modprobe -d "$R/usr" -S "$release" --show-depends "$name" | sed -n 's/^insmod //p'
done | sort -u | while read -r ko; do
    rel=${ko#"$FULL"/}
    mkdir -p "$MODS/$(dirname "$rel")"
    xz -dc "$ko" >"$MODS/${rel%.xz}"
done
strip --strip-debug -o "$MODS/updates/gpio-sim.ko" "$BUILD/gpio-sim.ko"
depmod -b "$OUT/modules" "$release"

# --- the initramfs -------------------------------------------------------------------------------
INITRD=$WORK/initramfs
mkdir -p "$INITRD/bin" "$INITRD/dev" "$INITRD/proc" "$INITRD/sys" "$INITRD/lib/modules" \
    "$INITRD/newroot" "$INITRD/lower" "$INITRD/rw"
cp "$BUSYBOX" "$INITRD/bin/busybox"
for applet in $("$BUSYBOX" --list); do
    [ "$applet" = busybox ] || ln -s busybox "$INITRD/bin/$applet"
done
cp -a "$OUT/modules/lib/modules/$release" "$INITRD/lib/modules/"
sed "s/@EARLY_MODULES@/$EARLY_MODULES/" "$HERE/init.sh" >"$INITRD/init"
chmod 755 "$INITRD/init"
# busybox's own cpio writes the archive (one tool fewer on the host).
(cd "$INITRD" && find . | LC_ALL=C sort | "$BUSYBOX" cpio -o -H newc -R 0:0 --ignore-devno \
    --renumber-inodes 2>/dev/null) \
    | gzip -9 >"$OUT/initramfs.cpio.gz"

rm -rf "$WORK"
echo "$STAMP" >"$OUT/ready"
echo "$release" >"$CACHE/current"
log "ready: $OUT"
echo "$OUT"
