"""Boot Debian's real kernel under QEMU with the host's own root, and run one command in it.

The machine tier's "Pi in a box": kernel.sh prepares the kernel, its modules (gpio-sim and
snd-aloop among them) and an initramfs; this module boots them with the host's root shared
read-only over 9p (a tmpfs overlay on top, so the guest may write anywhere), runs a command as
root, and returns its exit status. QEMU runs under TCG (no usable KVM here), in one of three modes:

- ``icount``: one vCPU, one instruction per nanosecond of guest time, idle time skipped: a
  deterministic model of a ~1 GHz core, unaffected by the host's load (the benchmark's).
- ``icount-sleep``: the same clock while the vCPU runs; idle, it waits as long as the host does
  (the tests': a wait on the host never warps the guest's clock past its timeouts).
- ``realtime``: two vCPUs on two host threads, guest time is wall time (slow and noisy).

CLI (stdlib only)::

    python3 tests/machine/vm.py run [--mode icount|icount-sleep|realtime] [--serial SOCKET]
                                    [--forward PORT]
                                    [--systemd] [--out DIR] [--env K=V] [--cwd DIR] [--timeout S]
                                    -- CMD...
    python3 tests/machine/vm.py lgpio    # PyPI's lgpio (hash-pinned) into CACHE/lgpio
    python3 tests/machine/vm.py probe    # guest/probe.sh in each mode, with boot times

The guest sees the second serial port (``--serial``, a unix socket QEMU listens on) as
/dev/ttyS1, and with ``--forward PORT`` the host's 127.0.0.1:PORT reaches the guest's PORT.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DEFAULT_CACHE = Path(
    os.environ.get("PIBOX_CACHE", Path.home() / ".cache" / "companion" / "pibox")
)
MODES = ("icount", "icount-sleep", "realtime")
FRESH_IN_GUEST = ("/tmp", "/var/tmp", "/run", "/dev/shm")
"""Folders the guest gets as new tmpfs (init.sh); a checkout in one is shared on its own."""
ACCEL = {
    # 1 instruction = 1 ns, no sleeping, no alignment to the host's clock. More than one vCPU
    # hangs under -icount on x86-64 ("Booting SMP"), and the RTC follows the guest's clock.
    "icount": ["-accel", "tcg", "-icount", "shift=0,sleep=off,align=off", "-smp", "1",
               "-rtc", "base=utc,clock=vm"],
    # The same, but an idle vCPU waits in real time for its next timer (sleep=on) instead of
    # the clock jumping there: a guest waiting on the host (a 9p read) sees the wait as long as
    # it was, never its timeouts expiring while the host answers.
    "icount-sleep": ["-accel", "tcg", "-icount", "shift=0,sleep=on,align=off", "-smp", "1",
                     "-rtc", "base=utc,clock=vm"],
    "realtime": ["-accel", "tcg,thread=multi", "-smp", "2"],
}
START_MARK = "pibox: start "
"""What the guest's PID 1 prints just before it runs the command (init.sh)."""
TERMINAL_CODES = re.compile(r"\x1b(?:\[[0-9;?]*[A-Za-z]|c)")
"""SeaBIOS's screen-clearing codes on the serial console, dropped from the console text."""
LGPIO = "lgpio==0.2.2.0"
LGPIO_SHA256 = {
    "cp311": "e9f4f3915abe5ae0ffdb4b96f485076d80a663876d839e2d3fd9218a71b9873e",
    "cp312": "2aadff092f642fcdada8457c158f87259dfda3a89ec19bae0b99ff22b34aac4b",
    "source": "11372e653b200f76a0b3ef8a23a0735c85ec678a9f8550b9893151ed0f863fff",
}
"""PyPI's files pip may install: the manylinux_2_34_x86_64 wheels, and the source (for
Python 3.13, which has no wheel: built with swig, linked statically as PyPI's wheels are)."""


@dataclass(frozen=True)
class Result:
    rc: int
    """The command's exit status (from /mnt/out/rc); 255 if the guest never wrote one."""
    boot_s: float | None
    """Wall seconds from QEMU's start to the command's start (None if it never started)."""
    total_s: float
    console: str
    out: Path


def prepare_kernel(cache: Path = DEFAULT_CACHE) -> Path:
    """Run kernel.sh (quick once cached) and return the directory with vmlinuz & co."""
    done = subprocess.run(["sh", str(HERE / "kernel.sh"), str(cache)], check=True,
                          stdout=subprocess.PIPE, text=True)
    return Path(done.stdout.strip().splitlines()[-1])


def install_lgpio(cache: Path = DEFAULT_CACHE) -> Path:
    """PyPI's lgpio into CACHE/lgpio-cpXY (for PYTHONPATH in the guest), pinned by its hash,
    for the Python running this (run it with the venv's: the guest runs that one).

    Not in the project's venv on purpose: on a Pi lgpio comes from Debian. CACHE must not be
    under /tmp, /run or /var/tmp: the guest has fresh ones.
    """
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    target = cache / f"lgpio-{tag}"
    if (target / "lgpio.py").exists():
        return target
    wheel = tag in LGPIO_SHA256
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
           "--disable-pip-version-check", "--root-user-action", "ignore", "--require-hashes",
           "--target", str(target)]
    if wheel:
        pip += ["--only-binary", ":all:", "--platform", "manylinux_2_34_x86_64"]
    else:
        pip += ["--no-binary", ":all:", "--no-build-isolation"]
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as req:
        req.write(f"{LGPIO} --hash=sha256:{LGPIO_SHA256[tag if wheel else 'source']}\n")
        req.flush()
        subprocess.run([*pip, "-r", req.name], check=True,
                       env={**os.environ, "PYPI": "1"})  # lgpio's setup.py: static build
    return target


def qemu_command(kernel: Path, out: Path, *, mode: str = "icount", serials: Sequence[Path] = (),
                 forward: int | None = None, cache_mode: str = "loose",
                 verbose: bool = False, systemd: bool = False) -> list[str]:
    """The qemu-system-x86_64 command line for one boot (``systemd``: PID 1 is the host's
    systemd, which runs the command as a service; see init.sh)."""
    append = ["console=ttyS0", "panic=-1", f"pibox.cache={cache_mode}"]
    if not verbose:
        append += ["quiet", "loglevel=3"]
    if forward is not None:
        append.append("pibox.net=1")
    if systemd:
        append.append("pibox.systemd=1")
    fresh = [Path(d) for d in FRESH_IN_GUEST]
    checkout_share = []
    if any(d == ROOT or d in ROOT.parents for d in fresh):  # e.g. CI's clone in /var/tmp
        append.append(f"pibox.checkout={ROOT}")
        checkout_share = ["-virtfs", f"local,path={ROOT},mount_tag=checkout,security_model=none,"
                                     "readonly=on,multidevs=remap"]
    cmd = [
        "qemu-system-x86_64", *ACCEL[mode], "-cpu", "max", "-m", "1024",
        "-nodefaults", "-nographic", "-no-reboot", "-no-user-config",
        "-kernel", str(kernel / "vmlinuz"), "-initrd", str(kernel / "initramfs.cpio.gz"),
        "-append", " ".join(append),
        "-serial", "stdio",
        "-virtfs", "local,path=/,mount_tag=rootfs,security_model=none,readonly=on,"
                   "multidevs=remap",
        "-virtfs", f"local,path={out},mount_tag=out,security_model=none,multidevs=remap",
        *checkout_share,
    ]
    for number, serial in enumerate(serials, 1):  # ttyS1, ttyS2, ...
        cmd += ["-chardev", f"socket,id=ttyS{number},path={serial},server=on,wait=off",
                "-serial", f"chardev:ttyS{number}"]
    if forward is not None:
        cmd += ["-netdev", f"user,id=net0,hostfwd=tcp:127.0.0.1:{forward}-:{forward}",
                "-device", "virtio-net-pci,netdev=net0"]
    return cmd


def write_command(out: Path, argv: Sequence[str], *, cwd: Path, env: dict[str, str]) -> None:
    """The guest's command as OUT/cmd.sh, the script init.sh runs by default."""
    lines = ["#!/bin/sh", f"cd {shlex.quote(str(cwd))} || exit 125"]
    lines += [f"export {key}={shlex.quote(value)}" for key, value in env.items()]
    lines.append(f"exec {shlex.join(argv)}")
    script = out / "cmd.sh"
    script.write_text("\n".join(lines) + "\n")
    script.chmod(0o755)


def boot(argv: Sequence[str], *, mode: str = "icount", cache: Path = DEFAULT_CACHE,
         out: Path | None = None, serials: Sequence[Path] = (), forward: int | None = None,
         env: dict[str, str] | None = None, cwd: Path = Path("/"), cache_mode: str = "loose",
         timeout: float = 900, echo: bool = True, verbose: bool = False,
         systemd: bool = False) -> Result:
    """Boot, run ARGV as root in the guest, power off; the console is echoed to stdout."""
    kernel = prepare_kernel(cache)
    out = Path(out or tempfile.mkdtemp(prefix="pibox-out-")).resolve()
    out.mkdir(parents=True, exist_ok=True)
    (out / "rc").unlink(missing_ok=True)
    write_command(out, argv, cwd=cwd, env=env or {})
    cmd = qemu_command(kernel, out, mode=mode, serials=serials, forward=forward,
                       cache_mode=cache_mode, verbose=verbose, systemd=systemd)
    for attempt in (1, 2):
        console, boot_s, total = _run_qemu(cmd, timeout=timeout, echo=echo)
        if boot_s is not None or attempt == 2:
            break
        # Under TCG a boot very rarely dies in the kernel before init (seen once in about
        # eight real-time boots): an emulator's flake, not the command's; boot once more.
        print(f"vm.py: the guest never reached its command; booting again. It said:\n"
              f"{''.join(console[-20:])}", file=sys.stderr)
    rc_file = out / "rc"
    rc = int(rc_file.read_text()) if rc_file.exists() else 255
    return Result(rc=rc, boot_s=boot_s, total_s=total, console="".join(console), out=out)


def _run_qemu(cmd: list[str], *, timeout: float, echo: bool) -> tuple[list[str], float | None,
                                                                      float]:
    """One QEMU run to its end: (console lines, seconds to the command's start, total s)."""
    console: list[str] = []
    boot_s: float | None = None
    start = time.monotonic()
    with subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT) as qemu:
        assert qemu.stdout is not None
        try:
            # A watchdog rather than a read timeout: lines are read as they come.
            deadline = start + timeout
            for raw in qemu.stdout:
                line = TERMINAL_CODES.sub("", raw.decode(errors="replace"))
                console.append(line)
                if boot_s is None and START_MARK in line:
                    boot_s = time.monotonic() - start
                if echo:
                    sys.stdout.write(line)
                    sys.stdout.flush()
                if time.monotonic() > deadline:
                    raise subprocess.TimeoutExpired(cmd, timeout)
            qemu.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            qemu.kill()
            console.append(f"vm.py: killed QEMU after {timeout:.0f} s\n")
    return console, boot_s, time.monotonic() - start


def _env_pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key, value


def _add_boot_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mode", choices=MODES, default="icount")
    parser.add_argument("--cache-mode", choices=("loose", "mmap", "none"), default="loose",
                        help="9p cache mode of the guest's root (default loose: fastest)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds before QEMU dies")
    parser.add_argument("--verbose", action="store_true", help="the kernel's messages too")


def _probe(cache: Path, args: argparse.Namespace) -> int:
    """guest/probe.sh in each mode; prints the boot times."""
    lgpio = install_lgpio(cache)
    failed = 0
    times: list[str] = []
    modes = MODES if args.mode is None else (args.mode,)
    for mode in modes:
        print(f"=== probe, {mode} mode", flush=True)
        result = boot([str(HERE / "guest" / "probe.sh")], mode=mode, cache=cache,
                      env={"PIBOX_LGPIO": str(lgpio), "PIBOX_ROOT": str(ROOT)},
                      cache_mode=args.cache_mode, timeout=args.timeout, verbose=args.verbose)
        boot_text = "never" if result.boot_s is None else f"{result.boot_s:.2f} s"
        times.append(f"{mode}: boot {boot_text}, total {result.total_s:.2f} s, rc {result.rc}")
        failed += result.rc != 0
    print("\n".join(times))
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                        help=f"kernel.sh's cache (default {DEFAULT_CACHE})")
    sub = parser.add_subparsers(dest="action", required=True)
    run = sub.add_parser("run", help="boot and run a command as root (the exit status is its)")
    _add_boot_options(run)
    run.add_argument("--out", type=Path, help="host directory seen as /mnt/out (default: new)")
    run.add_argument("--serial", type=Path, action="append", default=[],
                     help="unix socket for the guest's /dev/ttyS1 (again: ttyS2, ...)")
    run.add_argument("--forward", type=int, metavar="PORT",
                     help="host 127.0.0.1:PORT -> guest PORT (virtio-net, user networking)")
    run.add_argument("--systemd", action="store_true",
                     help="PID 1 is the host's systemd (the command runs as a service)")
    run.add_argument("--env", type=_env_pair, action="append", default=[], metavar="K=V")
    run.add_argument("--cwd", type=Path, default=Path.cwd(),
                     help="the command's directory (default: this one, read-only in the guest)")
    run.add_argument("command", nargs="+", help="the command (after --)")
    sub.add_parser("kernel", help="prepare the kernel (kernel.sh) and print its directory")
    sub.add_parser("lgpio", help="install PyPI's lgpio into CACHE/lgpio and print the path")
    probe = sub.add_parser("probe", help="run guest/probe.sh in each mode")
    _add_boot_options(probe)
    probe.set_defaults(mode=None)
    args = parser.parse_args(argv)

    if args.action == "kernel":
        print(prepare_kernel(args.cache))
        return 0
    if args.action == "lgpio":
        print(install_lgpio(args.cache))
        return 0
    if args.action == "probe":
        return _probe(args.cache, args)
    result = boot(args.command, mode=args.mode, cache=args.cache, out=args.out,
                  serials=args.serial, forward=args.forward, env=dict(args.env),
                  cwd=args.cwd.resolve(), cache_mode=args.cache_mode, timeout=args.timeout,
                  verbose=args.verbose, systemd=args.systemd)
    boot_text = "never" if result.boot_s is None else f"{result.boot_s:.2f} s"
    print(f"vm.py: {args.mode} boot {boot_text}, total {result.total_s:.2f} s, "
          f"rc {result.rc}, out {result.out}", file=sys.stderr)
    return result.rc


if __name__ == "__main__":
    sys.exit(main())
