"""The bank keeps every acknowledged write through crashes and concurrent writers.

Real processes (``tests/bank_writer.py``) write to one SQLite file: killed with SIGKILL at
random moments, or writing at the same time as each other; and the real daemon banks presses
from a GPIO thread while the tablet's transfers run. After each run the file is reopened and
checked: nothing acknowledged is missing, nothing is doubled, the file is intact and the SQL
balances equal the ledger's sum of the journal.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from companion.app.commands import Move
from companion.audio.null_backend import NullBackend
from companion.bank import DB_NAME, Bank
from companion.config import AudioConfig, Config, DataConfig, GameConfig
from companion.core.ledger import Entry, EntryKind, balances
from companion.core.outcomes import Kind
from companion.core.state import OutcomeView
from companion.daemon import Daemon
from companion.events import BlockOutcome, Event, PressIgnored, StateChanged

ROOT = Path(__file__).resolve().parent.parent
HANG_GUARD_S = 60.0
"""Only to turn a hung child into a failure; no assertion depends on how long anything takes."""


class Writer:
    """A ``tests/bank_writer.py`` child; its lines go to a file, so a kill loses none."""

    def __init__(self, folder: Path, name: str, *args: str) -> None:
        self.name = name
        self.out = folder / f"{name}.out"
        self.err = folder / f"{name}.err"
        with self.out.open("w") as out, self.err.open("w") as err:
            self.proc = subprocess.Popen([sys.executable, "-m", "tests.bank_writer", *args],
                                         cwd=ROOT, stdout=out, stderr=err)

    def lines(self) -> list[str]:
        """Complete lines only: a line cut by a kill is not an acknowledgement."""
        return self.out.read_text().split("\n")[:-1]

    def wait_for(self, prefix: str) -> None:
        deadline = time.monotonic() + HANG_GUARD_S
        while not any(line.startswith(prefix) for line in self.lines()):
            if self.proc.poll() is not None:
                raise AssertionError(f"{self.name} exited ({self.proc.returncode}) before "
                                     f"{prefix!r}:\n{self.err.read_text()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name} never printed {prefix!r}")
            time.sleep(0.002)

    def kill(self) -> None:
        self.proc.kill()  # SIGKILL: no handler, no flush, no close
        self.proc.wait(timeout=HANG_GUARD_S)
        assert self.proc.returncode == -signal.SIGKILL, (
            f"{self.name} was not running when killed:\n{self.err.read_text()}")

    def finish(self) -> None:
        assert self.proc.wait(timeout=HANG_GUARD_S) == 0, self.err.read_text()

    def acks(self) -> dict[str, tuple[int | None, int | None]]:
        """``{key: (entry id, outcome id)}`` for every acknowledged write."""
        result = {}
        for line in self.lines():
            if line.startswith("ack "):
                _, key, entry, outcome = line.split()
                assert key not in result, f"{self.name} acknowledged {key} twice"
                result[key] = (None if entry == "-" else int(entry),
                               None if outcome == "-" else int(outcome))
        return result


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Callable[..., Writer]]:
    """Start writers in tmp_path; any still running when the test ends is killed."""
    started: list[Writer] = []

    def start(name: str, *args: str) -> Writer:
        writer = Writer(tmp_path, name, *args)
        started.append(writer)
        return writer

    yield start
    for writer in started:
        if writer.proc.poll() is None:
            writer.proc.kill()
            writer.proc.wait(timeout=HANG_GUARD_S)


def new_bank_file(path: Path, names: list[str]) -> list[int]:
    bank = Bank(path)
    bank.new_game("celebration", names)
    players = [p.id for p in bank.players()]
    bank.close()
    return players


def reopen(path: Path) -> tuple[list[Entry], list[OutcomeView]]:
    """Check the file from outside, then reopen it with ``Bank``: (journal, outcomes by id)."""
    raw = sqlite3.connect(path)
    try:
        assert [row[0] for row in raw.execute("PRAGMA integrity_check")] == ["ok"]
        duplicates = raw.execute("SELECT request_id FROM moves WHERE request_id IS NOT NULL"
                                 " GROUP BY request_id HAVING COUNT(*) > 1").fetchall()
        assert duplicates == []
    finally:
        raw.close()
    bank = Bank(path)
    try:
        assert not list(path.parent.glob(f"{path.name}.broken-*"))  # not moved aside
        journal = bank.journal()
        players = [p.id for p in bank.players()]
        assert bank.balances() == balances(journal, players)
        outcomes = bank.outcomes()[::-1]
    finally:
        bank.close()
    ids = [e.id for e in journal]
    assert ids == sorted(set(ids))
    return journal, outcomes


def check_outcomes_have_their_coins(journal: list[Entry], outcomes: list[OutcomeView]) -> None:
    """Every banked outcome (all land on a current player here) has exactly one block entry
    if it moves coins, none otherwise: an outcome and its coins are one transaction."""
    by_outcome = Counter(e.outcome_id for e in journal if e.kind is EntryKind.BLOCK)
    entries = {e.outcome_id: e for e in journal if e.kind is EntryKind.BLOCK}
    assert set(by_outcome) <= {o.id for o in outcomes}
    for record in outcomes:
        assert record.player_id is not None
        if record.outcome.kind is Kind.POWER_UP:
            assert by_outcome[record.id] == 0
        else:
            assert by_outcome[record.id] == 1, record
            entry = entries[record.id]
            assert entry.amount == abs(record.outcome.coin_delta)
            assert entry.source == record.source


# -- 1. crashes ---------------------------------------------------------------------------

KILLS = 30


def is_transfer(key: str) -> bool:
    return int(key.split(":")[1]) % 6 < 3  # as tests/bank_writer.py crash_op


def tag(key: str) -> str:
    k, i = key.split(":")
    return f"w{k}-{i}"


def test_acknowledged_writes_survive_sigkill_at_random_moments(
    tmp_path: Path, spawn: Callable[..., Writer]
) -> None:
    path = tmp_path / DB_NAME
    new_bank_file(path, ["Mario", "Luigi"])
    rng = random.Random(20240611)
    tried: set[str] = set()
    acked: dict[str, tuple[int | None, int | None]] = {}
    mid_stream = 0

    def check(kills: int) -> None:
        journal, outcomes = reopen(path)
        assert [e.kind for e in journal[:2]] == [EntryKind.OPENING] * 2
        written = journal[2:]
        by_tag = {e.source: e for e in written}
        assert len(by_tag) == len(written), "an op was written twice"
        outcome_tags = {o.source: o for o in outcomes}
        assert len(outcome_tags) == len(outcomes), "an outcome was recorded twice"
        for key, (entry_id, outcome_id) in acked.items():
            if entry_id is None:
                assert tag(key) not in by_tag  # a power-up moves no coins
            else:
                assert tag(key) in by_tag, f"acknowledged {key} is lost"
                assert by_tag[tag(key)].id == entry_id
            if outcome_id is not None:
                assert tag(key) in outcome_tags, f"outcome of acknowledged {key} is lost"
                assert outcome_tags[tag(key)].id == outcome_id
        sent = {tag(key) for key in tried}
        assert set(by_tag) | set(outcome_tags) <= sent, "something nobody sent was written"
        unacked = {t for t in set(by_tag) | set(outcome_tags)
                   if t not in {tag(key) for key in acked}}
        assert len(unacked) <= kills  # at most the one write in flight per kill
        check_outcomes_have_their_coins(journal, outcomes)

    for k in range(KILLS):
        pending = sorted(key for key in tried - set(acked) if is_transfer(key))
        retry = [arg for key in pending for arg in ("--retry", key)]
        writer = spawn(f"w{k}", "crash", str(path), str(k), *retry)
        if rng.random() < 0.25:
            time.sleep(rng.uniform(0.0, 0.15))  # anywhere: start-up, opening, writing
        else:
            writer.wait_for(f"ack {k}:")
            time.sleep(rng.uniform(0.0, 0.03))
        writer.kill()
        lines = writer.lines()
        tried |= {line.split()[1] for line in lines if line.startswith("try ")}
        for key, result in writer.acks().items():
            assert acked.setdefault(key, result) == result
        mid_stream += any(line.startswith(f"ack {k}:") for line in lines)
        check(k + 1)

    # A last writer resends what was in flight, makes a few more writes and exits normally.
    pending = sorted(key for key in tried - set(acked) if is_transfer(key))
    last = spawn("last", "crash", str(path), str(KILLS), "--count", "12",
                 *[arg for key in pending for arg in ("--retry", key)])
    last.finish()
    tried |= {line.split()[1] for line in last.lines() if line.startswith("try ")}
    acked.update(last.acks())
    check(KILLS)
    assert {key for key in tried if is_transfer(key)} <= set(acked)  # each retry landed once

    assert mid_stream >= 20, "too few kills landed while the writer was writing"
    assert len(acked) > KILLS  # the kills interrupted streams of writes


# -- 2. several processes at once ---------------------------------------------------------

N = 150


def finish_all(writers: list[Writer]) -> None:
    """Wait for every writer; the first one that fails fails the test at once (the others,
    waiting for it at the start-up handshake, are killed by the fixture)."""
    deadline = time.monotonic() + HANG_GUARD_S
    while any(w.proc.poll() is None for w in writers) and time.monotonic() < deadline:
        for writer in writers:
            assert writer.proc.poll() in (None, 0), (
                f"{writer.name} failed:\n{writer.err.read_text()}")
        time.sleep(0.005)
    for writer in writers:
        writer.finish()


def run_together(tmp_path: Path, spawn: Callable[..., Writer], path: Path,
                 writers: list[tuple[str, str, bool]]) -> dict[str, dict[int, int]]:
    """Start ``(mode, tag, reverse)`` writers, release them at once, wait; their acks."""
    folder = tmp_path / "sync"
    folder.mkdir()
    tags = [t for _, t, _ in writers]
    started = [spawn(t, mode, str(path), t, str(N), str(folder),
                     "--others", *[o for o in tags if o != t], *(["--reverse"] * reverse))
               for mode, t, reverse in writers]
    for writer in started:
        writer.wait_for("ready")
    (folder / "go").touch()
    finish_all(started)
    acks = {}
    for writer in started:
        acks[writer.name] = {int(key): entry for key, (entry, _) in writer.acks().items()}
        assert None not in acks[writer.name].values()
    return acks  # type: ignore[return-value]


def test_the_block_and_two_web_writers_in_separate_processes_lose_and_double_nothing(
    tmp_path: Path, spawn: Callable[..., Writer]
) -> None:
    path = tmp_path / DB_NAME
    new_bank_file(path, ["Mario", "Luigi", "Peach"])
    acks = run_together(tmp_path, spawn, path,
                        [("block", "block", False), ("web", "web", False),
                         ("tablet", "tablet", False)])
    journal, outcomes = reopen(path)
    new = journal[3:]
    assert len(new) == 3 * N
    for name, acked in acks.items():
        assert sorted(acked) == list(range(N))
        mine = {e.id for e in new if e.source == name}
        assert set(acked.values()) == mine and len(mine) == N, name
    assert Counter(e.kind for e in new) == {EntryKind.BLOCK: N, EntryKind.TRANSFER: N + N // 2,
                                            EntryKind.PASS_GO: N // 2}
    web_notes = [e.note for e in new if e.kind is EntryKind.TRANSFER]
    assert len(set(web_notes)) == len(web_notes)
    assert len(outcomes) == N and {o.source for o in outcomes} == {"block"}
    check_outcomes_have_their_coins(journal, outcomes)
    sources = [e.source for e in new]
    switches = sum(a != b for a, b in itertools.pairwise(sources))
    assert switches >= 2  # the writers really overlapped (their start-up handshake ensures it)


def test_a_request_sent_by_two_processes_at_once_is_written_once(
    tmp_path: Path, spawn: Callable[..., Writer]
) -> None:
    path = tmp_path / DB_NAME
    new_bank_file(path, ["Mario", "Luigi"])
    # Two tablets retry the same N requests at once: "a" from the first, "b" in the same order
    # (racing on every request), "c" from the last (crossing "a" half-way).
    acks = run_together(tmp_path, spawn, path,
                        [("retry", "a", False), ("retry", "b", False), ("retry", "c", True)])
    journal, _ = reopen(path)
    new = journal[2:]
    assert len(new) == N
    by_note = {e.note: e for e in new}
    assert sorted(by_note) == sorted(f"req-{i}" for i in range(N))
    for i in range(N):
        assert acks["a"][i] == acks["b"][i] == acks["c"][i] == by_note[f"req-{i}"].id
    assert by_note["req-0"].source in {"a", "b"}  # one of the racers wrote it, the other replayed
    assert by_note[f"req-{N - 1}"].source == "c"  # "c" sent it first; "a" and "b" replayed it


# -- 3. inside the daemon -----------------------------------------------------------------

PHASES, PRESSES, TRANSFERS = 4, 25, 25


class SteppingClock:
    """Each reading is 10 s after the last: every edge is a clean press, no sound still plays."""

    def __init__(self) -> None:
        self.now = 1000.0
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            self.now += 10.0
            return self.now


async def test_the_daemon_banks_every_press_and_every_transfer_exactly_once(
    tmp_path: Path,
) -> None:
    # A table that named its players (a fresh install's stand-ins are charged nothing).
    app = Daemon(Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=str(tmp_path)),
                        game=GameConfig(players=("Mario", "Luigi", "Peach", "Yoshi"))),
                 pin_factory=MockFactory(), rng=random.Random(11), backend=NullBackend(),
                 clock=SteppingClock())
    presses: list[BlockOutcome] = []
    changes: list[StateChanged] = []
    ignored: list[Event] = []

    def listen(event: Event) -> None:
        if isinstance(event, BlockOutcome):
            presses.append(event)
        elif isinstance(event, StateChanged):
            changes.append(event)
        elif isinstance(event, PressIgnored):
            ignored.append(event)

    app.table.subscribe(listen)
    app.start(asyncio.get_running_loop())
    assert app.bank is not None and app.button is not None
    players = app.bank.run(lambda b: [p.id for p in b.players()])
    pin = app.button.pin

    def press_the_block(n: int) -> None:  # on a worker thread, as gpiozero calls back
        for _ in range(n):
            pin.drive_high()
            pin.drive_low()

    async def transfer(phase: int, j: int) -> Entry:
        rid = f"tablet-{phase}-{j}"
        payer, payee = players[j % 4], players[(j + 1) % 4]
        paid = await app.table.act(Move("transfer", {"from": payer, "to": payee,
                                                     "amount": 1 + j % 6, "note": rid}),
                                   source="tablet", request_id=rid)
        assert paid.entry is not None and not paid.capped
        return paid.entry

    sent: list[Entry] = []
    for phase in range(PHASES):
        done = await asyncio.gather(asyncio.to_thread(press_the_block, PRESSES),
                                    *(transfer(phase, j) for j in range(TRANSFERS)),
                                    transfer(phase, 0))  # the tablet retries its first request
        entries: list[Entry] = list(done[1:])
        assert entries[-1] == entries[0]
        sent += entries[:-1]
        deadline = time.monotonic() + HANG_GUARD_S
        while len(presses) < (phase + 1) * PRESSES and time.monotonic() < deadline:
            await asyncio.sleep(0.002)  # the last presses are still on their way to the loop
        await app.table.drain()
    journal, recorded = await app.bank.call(lambda b: (b.journal(), b.outcomes()[::-1]))
    app.close()

    assert ignored == [] and len(presses) == PHASES * PRESSES
    assert [e.number for e in presses] == list(range(1, PHASES * PRESSES + 1))
    assert len(changes) == PHASES * (PRESSES + TRANSFERS + 1)
    # Every press is banked once, in press order, and moves coins once if its outcome does.
    assert [r.outcome for r in recorded] == [e.outcome for e in presses]
    assert {r.source for r in recorded} == {"button"}
    moving = [e for e in presses if e.outcome.kind is not Kind.POWER_UP]
    blocks = [e for e in journal if e.kind is EntryKind.BLOCK]
    assert len(blocks) == len(moving) > 0
    check_outcomes_have_their_coins(journal, recorded)
    # Every transfer is banked once: the retried request returned the first entry.
    transfers = [e for e in journal if e.kind is EntryKind.TRANSFER]
    assert len(transfers) == len(sent) == PHASES * TRANSFERS
    assert sorted(e.id for e in transfers) == sorted(e.id for e in sent)
    assert len({e.note for e in transfers}) == len(transfers)
    assert len(journal) == len(players) + len(blocks) + len(transfers)
    # And all of it is on disk, consistent, after the daemon stopped.
    on_disk, on_disk_outcomes = reopen(tmp_path / DB_NAME)
    assert on_disk == journal and on_disk_outcomes == recorded
