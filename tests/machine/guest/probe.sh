#!/bin/sh
# Runs inside the machine-tier guest (vm.py probe): proves the pieces a hardware test needs.
#   (a) modules: configfs, gpio-sim (built by kernel.sh), snd-aloop
#   (b) a gpio-sim bank of 58 lines (the Pi's numbering) live as /dev/gpiochip0
#   (c) ALSA sees the Loopback card
#   (d) the project's venv imports companion
#   (e) gpiozero's lgpio factory sees a button press made on the simulated line
# Environment: PIBOX_ROOT (the project, default /work/main), PIBOX_LGPIO (lgpio's --target dir).
set -eu
ROOT=${PIBOX_ROOT:-/work/main}
PYTHON=$ROOT/.venv/bin/python
PIN=26

step() { echo "probe: $*"; }
elapsed() { awk -v a="$1" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.2f s", b - a }'; }

t0=$(cut -d' ' -f1 /proc/uptime)
modprobe configfs
modprobe gpio-sim
modprobe snd-aloop pcm_substreams=1
step "(a) modprobe configfs gpio-sim snd-aloop: ok ($(elapsed "$t0"))"

mount -t configfs configfs /sys/kernel/config
sim=/sys/kernel/config/gpio-sim/pibox
mkdir "$sim" "$sim/bank0"
echo 58 >"$sim/bank0/num_lines"
echo 1 >"$sim/live"
chip=$(cat "$sim/bank0/chip_name")
lines_dir=/sys/devices/platform/$(cat "$sim/dev_name")/$chip
[ -c "/dev/$chip" ] && [ "$chip" = gpiochip0 ]
step "(b) gpio-sim live: /dev/$chip, $(ls -d "$lines_dir"/sim_gpio* | wc -l) lines"
PULL=$lines_dir/sim_gpio$PIN/pull
[ -w "$PULL" ]

aplay -l | grep -q 'card [0-9]*: Loopback'
step "(c) aplay -l: $(aplay -l | grep -m1 Loopback)"

t0=$(cut -d' ' -f1 /proc/uptime)
"$PYTHON" -c 'import companion'
step "(d) $PYTHON -c 'import companion': ok ($(elapsed "$t0"))"

# gpiozero refuses a board that is not a Pi: a copy of cpuinfo that says Pi 4 B (c03111).
cp /proc/cpuinfo /tmp/cpuinfo
printf 'Revision\t: c03111\n' >>/tmp/cpuinfo
mount --bind /tmp/cpuinfo /proc/cpuinfo
t0=$(cut -d' ' -f1 /proc/uptime)
GPIOZERO_PIN_FACTORY=lgpio PYTHONPATH=${PIBOX_LGPIO:?} PULL=$PULL PIN=$PIN "$PYTHON" - <<'EOF'
import os
import threading
import time

from gpiozero import Button, Device

pressed = threading.Event()
released = threading.Event()
button = Button(int(os.environ["PIN"]), bounce_time=None)
button.when_pressed = lambda: pressed.set()
button.when_released = lambda: released.set()
print(f"probe: factory {type(Device.pin_factory).__name__}, board {Device.pin_factory.board_info.model}")
assert not button.is_pressed, "the line should idle high (pulled up)"
with open(os.environ["PULL"], "w") as pull:
    start = time.monotonic()
    pull.write("pull-down")
assert pressed.wait(10), "no press seen"
latency = time.monotonic() - start
with open(os.environ["PULL"], "w") as pull:
    pull.write("pull-up")
assert released.wait(10), "no release seen"
print(f"probe: press seen by when_pressed after {latency * 1000:.2f} ms")
button.close()
EOF
step "(e) gpiozero Button($PIN) on lgpio saw a press: ok ($(elapsed "$t0"))"
step "all ok"
