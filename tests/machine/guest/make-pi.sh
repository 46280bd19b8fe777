# The guest made into a Pi (sourced by pi.sh and service.sh, as root, under `set -eu`):
#   - gpio-sim: a 58-line /dev/gpiochip0 (the Pi's BCM numbering), pressed from sysfs
#     ($PIBOX_LINES: its lines' sysfs directory);
#   - /proc/cpuinfo says Pi 4 B (gpiozero's lgpio factory refuses any other board);
#   - snd-aloop: card "Loopback" (play on device 0, hear it on device 1), two substreams;
#   - /etc/asound.conf: hardware/asound.conf as shipped, only the card's name changed.
# Environment: PIBOX_ROOT (the checkout).
ROOT=${PIBOX_ROOT:?}

modprobe configfs
modprobe gpio-sim
modprobe snd-aloop pcm_substreams=2
mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config

sim=/sys/kernel/config/gpio-sim/pi
mkdir "$sim" "$sim/bank0"
echo 58 >"$sim/bank0/num_lines"
echo 1 >"$sim/live"
PIBOX_LINES=/sys/devices/platform/$(cat "$sim/dev_name")/$(cat "$sim/bank0/chip_name")
export PIBOX_LINES

cp /proc/cpuinfo /run/cpuinfo
printf 'Revision\t: c03111\n' >>/run/cpuinfo
mount --bind /run/cpuinfo /proc/cpuinfo

sed 's/default "MAX98357A"/default "Loopback"/' "$ROOT/hardware/asound.conf" >/etc/asound.conf
grep -q 'default "Loopback"' /etc/asound.conf

mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true

aplay -l | grep -q '^card [0-9]*: Loopback'
echo "make-pi.sh: a Pi 4 B with $(ls -d "$PIBOX_LINES"/sim_gpio* | wc -l) GPIO lines and card Loopback"
