#!/bin/sh
# systemd/companion.service under systemd as PID 1 (vm.boot(systemd=True)) on a guest made into a
# Pi: started, left to run past its watchdog, stopped. Writes what it saw as KEY=VALUE lines to
# /mnt/out/facts (the test judges them) and the unit's journal to the console.
# Environment: PIBOX_ROOT (the checkout), PIBOX_LGPIO (lgpio's directory).
set -eu
. "$(dirname "$0")/make-pi.sh"

# What systemd/install.sh and the Pi's udev rules do, done by hand in the overlay:
# - the system user companion in groups gpio, audio, dialout, video (gpio is the Pi's own group);
for group in gpio audio dialout video; do
    getent group "$group" >/dev/null || groupadd --system "$group"
done
id companion >/dev/null 2>&1 || useradd --system --user-group --home-dir /var/lib/companion \
    --no-create-home --shell /usr/sbin/nologin companion
usermod -aG gpio,audio,dialout,video companion
# - no udevd here: the device nodes' groups as the Pi's rules set them;
chgrp gpio /dev/gpiochip*
chgrp audio /dev/snd/*
chmod 660 /dev/gpiochip* /dev/snd/*
# - the installer's paths: /opt/companion/venv is the checkout's venv (its scripts' shebangs name
#   it already), and lgpio (on a Pi python3-lgpio, linked into the venv) is copied out of the
#   cache under /root, which ProtectHome=yes hides and the user could not read anyway;
mkdir -p /opt/companion /etc/companion
ln -s "$ROOT/.venv" /opt/companion/venv
cp -r "${PIBOX_LGPIO:?}" /opt/companion/lgpio
# - the pins on the default factory (gpiod, the kernel's edge events; lgpio the fallback);
cat >/etc/companion/companion.toml <<'TOML'
[audio]
backend = "stream"
[web]
host = "127.0.0.1"
port = 8080
[display]
enabled = false
[reader]
enabled = false
TOML
# - the unit as shipped, and a drop-in with what only the guest needs: lgpio on the path, and
#   the fake cpuinfo again inside the unit's namespace (ProtectKernelTunables=yes and
#   ProtectControlGroups=yes give it a /proc without the bind mount make-pi.sh made; a Pi needs
#   neither: its /proc/device-tree names the board).
units=/etc/systemd/system
cp "$ROOT/systemd/companion.service" "$units/"
mkdir -p "$units/companion.service.d" "$units/pibox.target.d"
cat >"$units/companion.service.d/pibox.conf" <<'UNIT'
[Service]
Environment=PYTHONPATH=/opt/companion/lgpio
BindReadOnlyPaths=/run/cpuinfo:/proc/cpuinfo
UNIT
# - a checkout under a home (CI's clone may be in /root) would be hidden by ProtectHome=yes, and
#   with it the venv's interpreter (an install lives in /opt): homes read-only instead, and the
#   path to the checkout open to the service user.
case "$ROOT" in
/root/* | /home/* | /run/user/*)
    printf 'ProtectHome=read-only\n' >>"$units/companion.service.d/pibox.conf"
    dir=$ROOT
    while [ "$dir" != / ]; do
        chmod o+x "$dir"
        dir=$(dirname "$dir")
    done
    ;;
/tmp/* | /var/tmp/*)
    # PrivateTmp=yes gives the unit its own /tmp and /var/tmp: the checkout bound back in.
    printf 'BindReadOnlyPaths=%s\n' "$ROOT" >>"$units/companion.service.d/pibox.conf"
    ;;
esac
# A stopped unit nothing refers to is unloaded, and `systemctl show` then reports a fresh unit's
# defaults: this reference keeps how it ended.
printf '[Unit]\nAfter=companion.service\n' >"$units/pibox.target.d/companion.conf"
systemctl daemon-reload

fact() { echo "$1=$2" >>/mnt/out/facts; echo "service.sh: $1=$2"; }
show() { systemctl show --property="$1" --value companion; }
uptime_s() { read -r up _ </proc/uptime; echo "$up"; }

fact pid1 "$(cat /proc/1/comm)"
# Type=notify: start returns once the daemon has sent READY=1, which it does once the web is up.
before=$(uptime_s)
rc=0
systemctl start companion || rc=$?
fact healthz "$("$ROOT/.venv/bin/python" -c '
import urllib.error, urllib.request
try:
    print(urllib.request.urlopen("http://127.0.0.1:8080/healthz", timeout=10).status)
except urllib.error.HTTPError as exc:
    print(exc.code)
except OSError as exc:
    print(type(exc).__name__)')"
fact start_rc "$rc"
fact start_s "$(awk -v a="$before" -v b="$(uptime_s)" 'BEGIN { printf "%.2f", b - a }')"
fact active "$(show ActiveState)/$(show SubState)"
fact status "$(show StatusText)"
pid=$(show MainPID)
fact main_pid "$pid"
fact user "$(stat -c %U "/proc/$pid")"
fact sandbox "$(awk '/^(NoNewPrivs|Seccomp|CapBnd):/ {printf "%s%s ", $1, $2}' "/proc/$pid/status")"
fact watchdog "$(show WatchdogUSec)"
pinged=$(show WatchdogTimestampMonotonic)

# Past WatchdogSec=10 since READY: a daemon that stopped pinging would have been killed by now.
sleep 12
fact active_later "$(show ActiveState)/$(show SubState)"
fact main_pid_later "$(show MainPID)"
fact restarts "$(show NRestarts)"
fact pinged_since "$(( $(show WatchdogTimestampMonotonic) > pinged ))"

rc=0
systemctl stop companion || rc=$?
fact stop_rc "$rc"
fact stopped "$(show ActiveState)/$(show Result)"
fact exit "$(show ExecMainCode)/$(show ExecMainStatus)"
journalctl --no-pager -o cat -u companion
