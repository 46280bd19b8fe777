#!/bin/busybox sh
# /init of the machine tier's initramfs (kernel.sh copies it in; busybox only, no libc).
# Mounts the host's root (9p tag `rootfs`, read-only) under a tmpfs overlay, so the guest can write
# anywhere and every change is gone at power-off; adds the modules, /mnt/out (9p tag `out`,
# read-write, optional), proc/sys/dev, and runs one command as a child of a tiny PID 1 that writes
# its exit status to /mnt/out/rc and powers the machine off.
#
# Kernel command line:
#   pibox.init=PATH     the command, run with no argument (default /mnt/out/cmd.sh; vm.py writes it)
#   pibox.cache=MODE    9p cache mode of the root: loose (default), mmap or none
#   pibox.net=1         load virtio_net and configure eth0 for QEMU's user networking
#   pibox.systemd=1     PID 1 is the host's systemd instead, booting pibox.target alone: its one
#                       unit, pibox-run.service, runs the command (as below) and powers off
#   pibox.checkout=PATH the checkout lies under /tmp, /var/tmp or /run, which the guest gets
#                       fresh: 9p tag `checkout` (read-only, a tmpfs overlay on top) is mounted
#                       back at PATH
set -eu
PATH=/bin

mount -t devtmpfs devtmpfs /dev
exec 0</dev/console 1>/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys

init=/mnt/out/cmd.sh cache=loose net="" systemd="" checkout=""
for arg in $(cat /proc/cmdline); do
    case $arg in
        pibox.init=*) init=${arg#*=} ;;
        pibox.cache=*) cache=${arg#*=} ;;
        pibox.net=*) net=${arg#*=} ;;
        pibox.systemd=*) systemd=${arg#*=} ;;
        pibox.checkout=*) checkout=${arg#*=} ;;
    esac
done

fail() {
    echo "pibox init: $*"
    echo o >/proc/sysrq-trigger
    sleep 10
}

for module in @EARLY_MODULES@; do modprobe "$module" || fail "cannot load $module"; done

# The root: 9p (read-only) below, tmpfs above.
mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=512000,cache="$cache" rootfs /lower \
    || fail "cannot mount the 9p share rootfs"
mount -t tmpfs -o mode=755 tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work overlay /newroot \
    || fail "cannot mount the overlay root"

# The host has no /lib/modules of this kernel: copy ours in (into the tmpfs layer).
mkdir -p /newroot/lib/modules
cp -a /lib/modules/* /newroot/lib/modules/

for dir in proc sys dev; do mount --move "/$dir" "/newroot/$dir"; done
mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /newroot/dev/pts
# Fresh scratch directories rather than the host's contents.
for dir in tmp run var/tmp dev/shm; do mount -t tmpfs -o mode=1777 tmpfs "/newroot/$dir"; done
if [ -n "$checkout" ]; then
    # Under its own tmpfs overlay, as the root is: writable like a checkout anywhere else (lgpio
    # makes its notification pipe in the current folder).
    mkdir -p /checkout "/newroot$checkout" /rw/checkout/upper /rw/checkout/work
    mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=512000,cache="$cache" checkout \
        /checkout || fail "cannot mount the 9p share checkout"
    mount -t overlay -o lowerdir=/checkout,upperdir=/rw/checkout/upper,workdir=/rw/checkout/work \
        overlay "/newroot$checkout" || fail "cannot mount the checkout at $checkout"
fi
chmod 755 /newroot/run
mkdir -p /newroot/mnt/out
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 out /newroot/mnt/out 2>/dev/null \
    || echo "pibox init: no 9p share out, /mnt/out stays empty"

ip link set lo up
if [ "$net" = 1 ]; then
    modprobe virtio_net
    ip link set eth0 up
    ip addr add 10.0.2.15/24 dev eth0          # QEMU's user networking defaults
    ip route add default via 10.0.2.2
fi

# PID 1 in the new root: the host's /bin/sh. It runs the command as a child, records its exit
# status, and powers off (sysrq works whatever kernel.sysrq says; -no-reboot makes QEMU exit).
cat >/newroot/run/pibox-init <<'EOF'
#!/bin/sh
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
cd /
read -r up _ </proc/uptime
echo "pibox: start $1 at uptime $up"
if [ -x "$1" ]; then "$1"; else sh "$1"; fi
rc=$?
read -r up _ </proc/uptime
echo "pibox: exit $rc at uptime $up"
[ -w /mnt/out ] && echo "$rc" >/mnt/out/rc
sync
echo o >/proc/sysrq-trigger
sleep 60
EOF
chmod 755 /newroot/run/pibox-init
[ "$systemd" = 1 ] || exec switch_root /newroot /run/pibox-init "$init"

# PID 1 the host's systemd: pibox-run.service runs the same script, its output on the console.
# pibox.target pulls nothing else. sysinit.target, which any ordinary service pulls in, keeps
# journald (journalctl works) and loses what is slow under TCG or pointless on this root: the
# kernel's extra file systems (the command mounts what it needs), modules, sysctl, tmpfiles, utmp,
# first-boot and seed services, binfmt, the host's own timesyncd and pstore.
masked="dev-hugepages.mount dev-mqueue.mount sys-fs-fuse-connections.mount
    sys-kernel-config.mount sys-kernel-debug.mount sys-kernel-tracing.mount
    proc-sys-fs-binfmt_misc.automount systemd-binfmt.service kmod-static-nodes.service
    systemd-modules-load.service systemd-sysctl.service systemd-sysusers.service
    systemd-remount-fs.service systemd-tmpfiles-setup.service systemd-tmpfiles-setup-dev.service
    systemd-journal-flush.service systemd-update-utmp.service systemd-random-seed.service
    systemd-firstboot.service systemd-machine-id-commit.service systemd-repart.service
    systemd-pcrphase.service systemd-pcrphase-sysinit.service systemd-pstore.service
    systemd-timesyncd.service systemd-ask-password-console.path"
# The host is a container: without its marker systemd sees the VM it runs in, as on a Pi.
rm -f /newroot/.dockerenv
units=/newroot/etc/systemd/system
mkdir -p "$units"
cat >"$units/pibox.target" <<'EOF'
[Unit]
Description=Pi in a box: the command alone
Wants=pibox-run.service
EOF
cat >"$units/pibox-run.service" <<EOF
[Unit]
Description=Pi in a box: $init
DefaultDependencies=no
[Service]
ExecStart=/run/pibox-init $init
StandardOutput=tty
TTYPath=/dev/console
EOF
for unit in $masked; do ln -sf /dev/null "$units/$unit"; done
exec switch_root /newroot /lib/systemd/systemd --unit=pibox.target --show-status=0
