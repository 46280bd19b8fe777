"""The ``companion`` command: run, demo, doctor, screens, reader, odds, bench, export, give-back,
board, config."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from companion import __version__
from companion.audio.backend import BACKENDS as AUDIO_BACKENDS
from companion.config import Config, ConfigError, example, load
from companion.core.editions import Editions
from companion.core.editions.modes import MAX_UTILITIES
from companion.i18n import LANGUAGES
from companion.logs import install_rate_limit

if TYPE_CHECKING:
    from companion.bank import Bank

EXIT_CONFIG = 2
DEMO_SCRATCH = ("A demo keeps its bank in a scratch folder, gone when it ends: to keep a demo's "
                "games, give it one (companion demo --config FILE with [data] dir = \"...\").")
"""Said after "no bank" and "no token": the first thing a newcomer tries after the demo."""
EXIT_USAGE = 2
"""A command given something it can't use (as argparse does): exit status 2, one line."""


def _at_least(minimum: int, maximum: int = 2**62) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text[:40]!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        if value > maximum:
            raise argparse.ArgumentTypeError(f"must be at most {maximum}")
        return value

    return parse


SYSLOG_LEVELS = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3,
                 logging.CRITICAL: 2}


class JournalFormatter(logging.Formatter):
    """Under systemd, each line starts with ``<N>`` (sd-daemon's level prefix), so journald
    files warnings as warnings (``journalctl -p warning``); it adds the time itself."""

    def format(self, record: logging.LogRecord) -> str:
        level = SYSLOG_LEVELS.get(record.levelno, 6)
        return "\n".join(f"<{level}>{line}" for line in super().format(record).splitlines())


def _setup_logging(verbose: bool, quiet: bool) -> None:
    fmt = "%(levelname)s %(name)s: %(message)s"
    handler = logging.StreamHandler(sys.stderr)
    if os.environ.get("JOURNAL_STREAM"):
        handler.setFormatter(JournalFormatter(fmt))
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s " + fmt))
    install_rate_limit(handler)  # a network flood must not flood the journal (issue 13)
    level = logging.DEBUG if verbose else logging.WARNING if quiet else logging.INFO
    logging.basicConfig(level=level, handlers=[handler])


def _load_config(path: Path | None) -> Config:
    return load(path) if path is not None else Config()


def _cmd_run(args: argparse.Namespace) -> int:
    from companion.daemon import Daemon
    from companion.frontends import from_config
    from companion.web.guard import raise_nofile_limit

    config = _load_config(args.config)
    if (refused := _private_data_dir(config)) is not None:
        print(f"companion: {refused}", file=sys.stderr)
        return 2
    raise_nofile_limit()  # room for connections beyond systemd's soft 1024 (LimitNOFILE)
    _warn_if_the_bank_is_in_ram(config)
    daemon = Daemon(config)
    asyncio.run(daemon.run(from_config(config, on_quit=daemon.request_stop_from_thread)))
    return 0


def _private_data_dir(config: Config) -> str | None:
    """Close the data folder up to 0700 before anything is written into it; why the companion
    won't start when it is open to others and not its user's to close. Any other problem
    (a full or read-only card) is the bank's to say, as it runs."""
    from companion.bank.store import OpenFolder, make_data_dir

    try:
        make_data_dir(config.data_dir)
    except OpenFolder as exc:
        return str(exc)
    except OSError:
        pass
    return None


def _warn_if_the_bank_is_in_ram(config: Config) -> None:
    """A read-only root's RAM layer (or a tmpfs) under the data folder loses every coin at the
    next boot: said at every start, in the journal (the game still runs)."""
    from companion.machine import volatile

    gone = volatile(config.data_dir)
    if gone is not None:
        mount, what = gone
        logging.getLogger("companion.daemon").warning(
            "the bank is on %s (%s): every coin is lost at the next boot; companion doctor "
            "says how to keep it on the SD card", what, mount.point)


def _with_language(config: Config, code: str | None) -> Config:
    """``config`` speaking ``code`` ([table] language) for this run; None: as configured."""
    import dataclasses

    if code is None:
        return config
    return dataclasses.replace(config, table=dataclasses.replace(config.table, language=code))


def _cmd_demo(args: argparse.Namespace) -> int:
    from companion.demo import run_demo

    config = _with_language(_load_config(args.config), args.language)
    return asyncio.run(run_demo(config, seed=args.seed, auto=args.auto, audio=args.audio,
                                display=args.display))


def _size(text: str) -> str:
    from companion.config import _display_size

    problem = _display_size(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def _cmd_screens(args: argparse.Namespace) -> int:
    from companion.display import SIZES
    from companion.display.previews import write_previews

    written = write_previews(args.out, tuple(args.size or SIZES), args.language)
    print(f"wrote {len(written)} screens to {args.out}")
    return 0


def _cmd_reader(args: argparse.Namespace) -> int:
    """Print taps live from a reader, to check its wiring (Ctrl-C to stop)."""
    import signal
    import threading
    import time

    from companion.readers.port import SerialReader

    cfg = _load_config(args.config).reader
    port = args.port or cfg.port
    protocol = args.protocol or cfg.protocol
    stop = threading.Event()
    started = time.monotonic()
    last_detail = [""]

    def tap(uid: str, at: float) -> None:
        print(f"{at - started:8.2f}s  tap {uid}", flush=True)

    def status(s: object) -> None:
        detail = getattr(s, "detail", "")
        if detail != last_detail[0]:
            last_detail[0] = detail
            print(f"{time.monotonic() - started:8.2f}s  {port}: {detail}", flush=True)

    reader = SerialReader(port, protocol, baudrate=args.baudrate or cfg.baudrate,
                          tap_gap=cfg.tap_gap_ms / 1000, on_tap=tap, on_status=status)
    print(f"reading {protocol} cards on {port} ({reader.baudrate} baud); Ctrl-C to stop",
          flush=True)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    reader.start()
    stop.wait()
    reader.stop()
    st = reader.status
    ignored = ", ".join(f"{k} {v}" for k, v in sorted(st.rejects.items())) or "none"
    print(f"{st.taps} taps from {st.frames} reads; ignored: {ignored}; "
          f"connected {st.connects}x, lost {st.disconnects}x", flush=True)
    return 0


SYSTEM_CONFIG = Path("/etc/companion/companion.toml")
SERVICE_STATE = Path("/var/lib/companion")


def _system_config(path: Path | None) -> tuple[Config, Path | None]:
    """--config, else the service's config if installed; the service's data folder with it."""
    import dataclasses

    path = path or (SYSTEM_CONFIG if SYSTEM_CONFIG.exists() else None)
    config = _load_config(path)
    if path == SYSTEM_CONFIG and not config.data.dir:  # the service's StateDirectory
        config = dataclasses.replace(config, data=dataclasses.replace(
            config.data, dir=str(SERVICE_STATE)))
    return config, path


def _cmd_link(args: argparse.Namespace) -> int:
    """The tablet link with its token (``--join``: the players' join link), and its QR code in
    the terminal."""
    import segno

    from companion.web import links
    from companion.web.token import TOKEN_FILE

    config, _ = _system_config(args.config)
    token = config.web.token
    if not token:
        path = config.data_dir / TOKEN_FILE
        try:
            token = path.read_text().strip()
        except PermissionError:
            print(f"companion: {path} is the service's: run this with sudo", file=sys.stderr)
            return 1
        except OSError:
            print(f"companion: no table token yet in {config.data_dir}: start the companion "
                  f"once (it makes one). {DEMO_SCRATCH}", file=sys.stderr)
            return 1
    page, key = "", "token"
    if args.join:  # the players' join link of the game played: made from the token
        from companion.web import join_code

        game = _game_played(config)
        if game is None:
            return 1
        token, page, key = join_code.JoinCodes(token).code(game), join_code.PAGE, join_code.KEY
    link = links.lan_link(config.web.host, config.web.port, token, page=page, key=key) or \
        links.with_fragment(links.page_url(config.web.host, config.web.port) + page, key, token)
    print(link)
    if not args.no_qr:
        segno.make(link, error="m").terminal(compact=True)
    return 0


def _game_played(config: Config) -> int | None:
    """The id of the game the table plays, from the bank (read only); None: said why."""
    from companion.bank import DB_NAME, Bank, BankUnavailable

    path = config.data_dir / DB_NAME
    if not path.exists():
        print(f"companion: no bank yet at {path}: start the companion once (it makes one). "
              f"{DEMO_SCRATCH}", file=sys.stderr)
        return None
    try:
        bank = Bank(path, readonly=True)
    except BankUnavailable as exc:
        hint = " (the service's bank: run this with sudo)" if not os.access(path, os.R_OK) \
            else ""
        print(f"companion: {exc}{hint}", file=sys.stderr)
        return None
    try:
        game = bank.latest_game()
    finally:
        bank.close()
    if game is None:
        print("companion: no game yet: start one on the banker's page first", file=sys.stderr)
    return game


def _cmd_doctor(args: argparse.Namespace) -> int:
    """One line per part of the build; exit 1 if a required part fails."""
    from companion.doctor import run_checks

    config, path = _system_config(args.config)
    results = run_checks(config, path)
    for result in results:
        print(result.line(), flush=True)
    failed = [r.name for r in results if r.status == "FAIL" and r.required]
    optional = [r.name for r in results if r.status == "FAIL" and not r.required]
    if failed:
        print(f"\n{len(failed)} required check(s) failed: {', '.join(failed)}")
        return 1
    print("\nall required checks passed" + (f" (optional problems: {', '.join(optional)})"
                                            if optional else ""))
    return 0


def _usage(command: str, problem: str) -> int:
    print(f"companion {command}: {problem}", file=sys.stderr)
    return EXIT_USAGE


def _cmd_odds(args: argparse.Namespace) -> int:
    from companion.core.odds import min_presses, simulate
    from companion.core.outcomes import default_rng
    from companion.exc import Refused

    config = _load_config(args.config)
    known = config.game.rulesets()
    if args.list:
        return _odds_list(known, args.json)
    try:
        rules = known.get_edition(args.edition or config.game.edition)
        mode = rules.mode(args.mode) if args.mode else rules.default_mode
    except Refused as exc:
        return _usage("odds", str(exc))
    expected = mode.odds()
    if not expected:
        return _usage("odds", f"{rules.name}'s {mode.name} draws nothing: a press starts or "
                              "stops the timer")
    least = min_presses(expected)
    if args.presses < least:
        rarest = min(expected.values())
        return _usage("odds", f"--presses must be at least {least} for {mode.name} "
                              f"(chi-square needs 5 expected presses in its rarest class, "
                              f"{rarest})")
    params: dict[str, int] | None = {"utilities": args.utilities} if mode.needs else None
    if mode.table == "boss_roll":
        if args.required is None:
            return _usage("odds", f"{mode.name} needs --required (the roll printed on the Boss "
                                  "card, 1 to 6)")
        params = {"required": args.required}
    elif args.required is not None:
        return _usage("odds", f"--required is for a Boss fight, not {mode.name}")
    if args.faces is not None and mode.table != "move_roll":
        return _usage("odds", f"--faces is for the movement press, not {mode.name}")
    if args.faces is not None:
        from companion.bank.ring import abilities
        from companion.core.board_ring import check_faces

        try:
            faces = check_faces(args.faces.split(","), abilities(rules))
        except Refused as exc:
            return _usage("odds", f"--faces: {exc}")
        params = {"faces": list(faces)}  # type: ignore[dict-item]
    result = simulate(rules.id, mode, default_rng(), args.presses, params)
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
        return 0
    print(f"{args.presses} presses of {rules.name}: {mode.name} (OS entropy)\n")
    print(f"{'outcome':<11} {'exact':>6} {'expected':>9} {'observed':>9}  {'count':>8}")
    for label, p in expected.items():
        count = result.observed[label]
        print(f"{label:<11} {p!s:>6} {float(p):>9.4f} {count / result.presses:>9.4f}  "
              f"{count:>8}")
    for name, (count, p) in result.groups.items():
        print(f"{name:<11} {p!s:>6} {float(p):>9.4f} {count / result.presses:>9.4f}  "
              f"{count:>8}")
    if mode.table == "battle":
        print("(each a whole battle: the leader's press and the teammate's)")
    if mode.table == "boss_roll":
        print(f"(a roll of {args.required} or more beats the Boss: (7 - {args.required})/6)")
    if mode.table == "race_roll":
        print("(each racer's roll; tied racers roll again, with the same die)")
    if mode.table == "move_roll":
        print("(the numbered die and the Power-up die's face 1-6; --faces names each face's "
              "ability, as the table typed them)")
    verdict = "fair" if result.p_value >= 0.001 else "NOT matching the rulebook"
    print(f"\nchi-square {result.chi_square:.2f} on {result.degrees_of_freedom} degrees of "
          f"freedom, p-value {result.p_value:.3f}: {verdict}")
    return 0


def _odds_list(known: Editions, as_json: bool) -> int:
    """Every edition's press modes with their exact odds."""
    if as_json:
        print(json.dumps({r.id: {"name": r.name, "modes": [m.to_json() for m in r.modes]}
                          for r in known.values()}, indent=2, ensure_ascii=False))
        return 0
    for rules in known.values():
        print(f"{rules.id}: {rules.name}")
        for mode in rules.modes:
            default = " (default)" if mode.default else ""
            odds = mode.odds()
            print(f"  {mode.id}: {mode.name}{default}")
            if not odds:
                print("    no dice: a press starts or stops the lever timer")
            for label, p in odds.items():
                print(f"    {label:<11} {p!s:>5}")
        print()
    return 0


def _cmd_flow(args: argparse.Namespace) -> int:
    """Who may make each move, and when: every edition's flow (or ``--edition``'s)."""
    from companion.bank.flow_table import markdown
    from companion.bank.moves import ACTIONS
    from companion.exc import Refused

    config = _load_config(args.config)
    known = config.game.rulesets()
    try:
        chosen = [known.get_edition(args.edition)] if args.edition else list(known.values())
    except Refused as exc:
        return _usage("flow", str(exc))
    print("\n".join(markdown(rules, ACTIONS) for rules in chosen), end="")
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from companion.bench import run_all

    config = _load_config(args.config)
    figures = run_all(presses=args.presses, data_dir=config.data_dir, writes=args.writes)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for name, value in figures.items():
            print(f"{name}: {json.dumps(value)}")
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from companion.bank import DB_NAME, Bank, BankUnavailable
    from companion.bank.export import export_journal
    from companion.exc import Refused

    config = _load_config(args.config)
    if args.held:
        return _write_out(args.out, _held_text(config.data_dir))
    path = config.data_dir / DB_NAME
    if not path.exists():
        print(f"companion: no bank at {path} (set [data] dir, or run the companion first). "
              f"{DEMO_SCRATCH}", file=sys.stderr)
        return 1
    try:
        bank = Bank(path, readonly=True)  # an export never changes the bank file
    except BankUnavailable as exc:
        print(f"companion: {exc}", file=sys.stderr)
        return 1
    try:
        text = export_journal(bank, args.game, args.format)
    except Refused as exc:
        print(f"companion: {exc}", file=sys.stderr)
        return 1
    finally:
        bank.close()
    return _write_out(args.out, text)


def _held_text(data_dir: Path) -> str:
    from companion.bank.kept_file import export_held

    return export_held(data_dir)


def _write_out(out: Path | None, text: str) -> int:
    """``text`` to ``out`` (a file), or standard output."""
    try:
        if out is None:
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            out.write_text(text, encoding="utf-8")
    except BrokenPipeError:  # e.g. piped into `head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        print(f"companion: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0


def _cmd_give_back(args: argparse.Namespace) -> int:
    import errno

    from companion.bank.kept_file import give_back
    from companion.exc import Refused

    config = _load_config(args.config)
    try:
        added, there = give_back(config.data_dir, args.file)
    except Refused as exc:
        print(f"companion: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        if exc.errno == errno.EBUSY:
            print("companion: the companion is running on this data folder: give the presses "
                  "back from the tablet (New game · earlier games > Give back presses from a "
                  "file), or stop it first", file=sys.stderr)
        else:
            print(f"companion: cannot give them back into {config.data_dir}: "
                  f"{exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"{added} press(es) added to the held presses in {config.data_dir} "
          f"({there} already there): the companion banks them at its next start, once each")
    return 0


def _open_bank(config: Config, readonly: bool) -> Bank | None:
    """The bank of ``config``'s data folder, or the line saying why not (printed)."""
    from companion.bank import DB_NAME, Bank, BankUnavailable

    path = config.data_dir / DB_NAME
    if not path.exists():
        print(f"companion: no bank at {path} (set [data] dir, or run the companion first). "
              f"{DEMO_SCRATCH}", file=sys.stderr)
        return None
    try:
        return Bank(path, readonly=readonly, rulesets=config.game.rulesets())
    except BankUnavailable as exc:
        print(f"companion: {exc}", file=sys.stderr)
        return None


def _cmd_board_export(args: argparse.Namespace) -> int:
    """The described board (Gamer, Mario Kart) as a file another companion imports."""
    from companion.bank.board_file import board_file, file_text
    from companion.exc import Refused

    bank = _open_bank(_load_config(args.config), readonly=True)
    if bank is None:
        return 1
    try:
        text = file_text(board_file(bank, args.edition))
    except Refused as exc:
        return _usage("board export", str(exc))
    finally:
        bank.close()
    return _write_out(args.file, text)


def _cmd_board_import(args: argparse.Namespace) -> int:
    """A board file read in whole and kept for its edition; a file refused changes nothing."""
    from companion.bank.board_file import import_board
    from companion.exc import Refused

    try:
        data = json.loads(args.file.read_bytes())
    except OSError as exc:
        return _usage("board import", f"cannot read {args.file}: {exc.strerror or exc}")
    except (ValueError, UnicodeDecodeError) as exc:
        return _usage("board import", f"{args.file} is not a board file: not JSON ({exc})")
    bank = _open_bank(_load_config(args.config), readonly=False)
    if bank is None:
        return 1
    try:
        rules, ring = import_board(bank, data)
    except Refused as exc:
        return _usage("board import", f"{args.file}: {exc} (nothing changed)")
    finally:
        bank.close()
    print(f"{rules.name}'s board: {len(ring)} spaces from {args.file}, kept for every game of "
          f"it (a page open now shows it at its next update, or reload it)")
    return 0


def _cmd_config(args: argparse.Namespace) -> int:
    if args.check:
        if args.config is None:
            raise ConfigError("--config", "give the file to check")
        load(args.config)
        print(f"{args.config}: ok")
        return 0
    print(example())
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion", description="Question Block companion for the board-game table.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", help="run the daemon (on the Pi, under systemd)")
    run.add_argument("--config", type=Path, help="TOML config file")
    run.set_defaults(func=_cmd_run)

    demo = sub.add_parser("demo", help="the daemon on a laptop: mock pins, keyboard presses")
    demo.add_argument("--config", type=Path, help="TOML config file (pins are mocked)")
    demo.add_argument("--seed", type=int, help="seed the dice (for testing; normally OS entropy)")
    demo.add_argument("--auto", type=int, metavar="N", help="press N times by itself, then exit")
    demo.add_argument("--audio", choices=AUDIO_BACKENDS,
                      help="override [audio] backend")
    demo.add_argument("--display", choices=["auto", "on", "off"], default="auto",
                      help="show the small screen in a window (auto: when there is a desktop)")
    demo.add_argument("--language", choices=LANGUAGES, metavar="CODE",
                      help="override [table] language for this run: "
                           f"{', '.join(LANGUAGES)}")
    demo.set_defaults(func=_cmd_demo)

    screens = sub.add_parser("screens", help="render every screen the panel shows to PNG files")
    screens.add_argument("--out", type=Path, required=True, help="folder for the PNG files")
    screens.add_argument("--size", type=_size, action="append",
                         help="WxH (repeatable; default: 480x320, 320x240 and 800x480)")
    screens.add_argument("--language", choices=LANGUAGES, metavar="CODE", default="en",
                         help=f"the screens' language: {', '.join(LANGUAGES)} (default: en)")
    screens.set_defaults(func=_cmd_screens)

    doctor = sub.add_parser("doctor", help="check config, GPIO, audio, reader, screen, data "
                                           "folder and web port, one line each")
    doctor.add_argument("--config", type=Path,
                        help=f"TOML config file (default: {SYSTEM_CONFIG} if present)")
    doctor.set_defaults(func=_cmd_doctor)

    link = sub.add_parser("link", help="print the tablet link with its token (and a QR code)")
    link.add_argument("--config", type=Path,
                      help=f"TOML config file (default: {SYSTEM_CONFIG} if present)")
    link.add_argument("--no-qr", action="store_true", help="the link only")
    link.add_argument("--join", action="store_true",
                      help="the players' join link of the game played instead (no token: a "
                           "phone that opens it picks a player who has no phone yet)")
    link.set_defaults(func=_cmd_link)

    reader = sub.add_parser("reader", help="print card taps live from an NFC/RFID reader")
    reader.add_argument("--config", type=Path, help="TOML config file (defaults for [reader])")
    reader.add_argument("--port", help="serial device (default: [reader] port)")
    reader.add_argument("--protocol", choices=["rdm6300", "pn532", "lines"],
                        help="default: [reader] protocol")
    reader.add_argument("--baudrate", type=_at_least(50, 4_000_000),
                        help="default: the protocol's own")
    reader.set_defaults(func=_cmd_reader)

    odds = sub.add_parser("odds", help="press a mode many times and check its odds against "
                                       "the rulebook; --list shows every mode's exact odds")
    odds.add_argument("--edition", help="an edition (default: [game] edition, celebration)")
    odds.add_argument("--mode", help="a press mode of that edition (default: its default)")
    odds.add_argument("--presses", type=_at_least(1), default=100_000,
                      help="presses (default 100000; at least 5 expected in the rarest class)")
    odds.add_argument("--utilities", type=int, choices=range(1, MAX_UTILITIES + 1), default=1,
                      help="utility rent: how many utilities the owner has")
    odds.add_argument("--required", type=int, choices=range(1, 7), default=None,
                      help="a Boss fight (gamer --mode boss): the card's required roll, 1-6")
    odds.add_argument("--faces", help="the movement press (gamer or mario_kart --mode move): "
                                      "the Power-up die's six faces, as the table typed them, "
                                      "comma-separated ability ids")
    odds.add_argument("--list", action="store_true", help="every edition's modes and odds")
    odds.add_argument("--json", action="store_true", help="machine-readable output")
    odds.add_argument("--config", type=Path, help="TOML config ([game]: edition, house rules)")
    odds.set_defaults(func=_cmd_odds)

    flow = sub.add_parser("flow", help="who may make each move, and when, by each edition's "
                                       "rulebook (a Markdown table)")
    flow.add_argument("--edition", help="one edition (default: every one)")
    flow.add_argument("--config", type=Path, help="TOML config ([game]: house rules)")
    flow.set_defaults(func=_cmd_flow)

    bench = sub.add_parser("bench", help="measure latency, start-up and memory")
    bench.add_argument("--json", action="store_true", help="machine-readable output")
    bench.add_argument("--presses", type=_at_least(1), default=200,
                       help="presses to time (default 200)")
    bench.add_argument("--writes", type=_at_least(10, 1_000_000), default=100_000,
                       help="writes for write_cost_growth (default 100000; fewer for a quick "
                            "run)")
    bench.add_argument("--config", type=Path, help="TOML config ([data] dir: the disk to time)")
    bench.set_defaults(func=_cmd_bench)

    export = sub.add_parser("export", help="write a game's coin journal as CSV or JSON")
    export.add_argument("--config", type=Path, help="TOML config file (for [data] dir)")
    export.add_argument("--game", type=_at_least(1),
                        help="game id (default: the game being played)")
    export.add_argument("--format", choices=["csv", "json"], default="csv")
    export.add_argument("--out", type=Path, help="file to write (default: standard output)")
    export.add_argument("--held", action="store_true",
                        help="the presses held while the disk refused them, as a file to give "
                             "back later (`companion give-back`, or from a tablet)")
    export.set_defaults(func=_cmd_export)

    give = sub.add_parser("give-back", help="give back held presses from a file (`export "
                                            "--held`, or a tablet's): banked at the next start")
    give.add_argument("file", type=Path, help="the file of kept presses")
    give.add_argument("--config", type=Path, help="TOML config file (for [data] dir)")
    give.set_defaults(func=_cmd_give_back)

    board = sub.add_parser("board", help="the described board (Gamer, Mario Kart) as a file: "
                                         "export it, import it on another companion")
    board_sub = board.add_subparsers(dest="board_command", required=True, metavar="ACTION")
    board_out = board_sub.add_parser("export", help="write the described board as JSON")
    board_out.add_argument("file", type=Path, nargs="?",
                           help="file to write (default: standard output)")
    board_out.add_argument("--edition", help="gamer or mario_kart (default: the game played's)")
    board_out.add_argument("--config", type=Path, help="TOML config file (for [data] dir)")
    board_out.set_defaults(func=_cmd_board_export)
    board_in = board_sub.add_parser("import", help="read a board file in (checked whole; a "
                                                   "file refused changes nothing)")
    board_in.add_argument("file", type=Path, help="a file from `companion board export`")
    board_in.add_argument("--config", type=Path, help="TOML config file (for [data] dir)")
    board_in.set_defaults(func=_cmd_board_import)

    config = sub.add_parser("config", help="print a documented example config, or check one")
    config.add_argument("--check", action="store_true", help="validate --config and exit")
    config.add_argument("--config", type=Path, help="TOML config file")
    config.set_defaults(func=_cmd_config)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # The demo and the bench print what matters themselves; their log shows only trouble.
    _setup_logging(args.verbose, quiet=args.command in ("demo", "bench", "doctor", "reader"))
    try:
        return int(args.func(args))
    except ConfigError as exc:
        print(f"companion: config error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `companion link | head`: the reader left; not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
