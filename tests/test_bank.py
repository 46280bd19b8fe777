"""The bank on a real SQLite file: games, the journal, the block's outcomes, undo, bad input."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.bank import DB_NAME, Bank, BankUnavailable
from companion.bank.export import export_journal
from companion.core.ledger import BANK, EntryKind, balances
from companion.core.outcomes import Kind, Outcome
from companion.exc import Conflict, Refused
from tests.conftest import ROOT, StepClock, run_companion

BOWSER = Outcome(Kind.BOWSER, 5, (3,))  # priced as Celebration's ruleset prices them
GAME_OVER = Outcome(Kind.GAME_OVER, 10, (6,))


@pytest.fixture
def bank(tmp_path: Path) -> Bank:
    b = Bank(tmp_path / "bank.sqlite3", clock=StepClock(1_800_000_000.0, 1))
    b.new_game("celebration", ["Mario", "Luigi", "Peach"])
    return b


def ids(bank: Bank) -> list[int]:
    return [p.id for p in bank.players()]


def snapshot(bank: Bank) -> tuple[object, ...]:
    return (bank.journal(), bank.balances(), bank.current_player(),
            [o.to_json() for o in bank.outcomes()], bank.games())


def test_new_game_pays_opening_balances_from_the_preset(bank: Bank) -> None:
    mario, luigi, peach = ids(bank)
    assert bank.balances() == {mario: 30, luigi: 30, peach: 30}
    journal = bank.journal()
    assert [(e.payer, e.payee, e.amount, e.kind) for e in journal] == [
        (BANK, pid, 30, EntryKind.OPENING) for pid in (mario, luigi, peach)]
    assert bank.current_player() == mario
    assert [p.colour for p in bank.players()] == ["#e52521", "#43b047", "#f49ac1"]


def test_a_new_game_keeps_old_games_readable(bank: Bank) -> None:
    first = bank.latest_game()
    bank.transfer(BANK, ids(bank)[0], 7, note="rent")
    second = bank.new_game("gamer", ["Toad", "Daisy"])
    assert bank.latest_game() == second != first
    assert sorted(bank.balances(first).values()) == [30, 30, 37]
    assert list(bank.balances().values()) == [20, 20]  # two Gamer players: 20 coins each
    assert [g["id"] for g in bank.games()] == [first, second]
    assert len(bank.journal(first)) == 4


@pytest.mark.parametrize(("outcome", "delta"), [
    (Outcome(Kind.COINS, coins=4), +4),
    (BOWSER, -5),
    (GAME_OVER, -10),
    (Outcome(Kind.POWER_UP), 0),
])
def test_block_outcome_lands_on_the_current_player(bank: Bank, outcome: Outcome,
                                                   delta: int) -> None:
    mario, luigi, _ = ids(bank)
    bank.set_current(luigi)
    record = bank.record_outcome(outcome, source="button")
    assert record.player_id == luigi
    assert bank.balances()[luigi] == 30 + delta
    assert bank.balances()[mario] == 30
    if delta:
        entry = bank.journal()[-1]
        assert entry.kind is EntryKind.BLOCK and entry.outcome_id == record.id
        assert entry.amount == abs(delta) and record.entry_id == entry.id
    else:
        assert record.entry_id is None and len(bank.journal()) == 3  # logged, no coins
    assert bank.state().last_outcome.outcome.kind is outcome.kind


def test_unassigned_outcome_is_kept_and_assigned_exactly_once(bank: Bank) -> None:
    mario, luigi, _ = ids(bank)
    bank.set_current(None)
    record = bank.record_outcome(Outcome(Kind.COINS, coins=3))
    assert record.player_id is None
    assert bank.balances() == {pid: 30 for pid in ids(bank)}
    assert [o.id for o in bank.state().unassigned] == [record.id]
    assigned = bank.assign_outcome(record.id, luigi)
    assert assigned.player_id == luigi and bank.balances()[luigi] == 33
    before = snapshot(bank)
    with pytest.raises(Refused, match="already assigned"):
        bank.assign_outcome(record.id, mario)
    assert snapshot(bank) == before
    assert bank.state().unassigned == ()


def test_undo_compensates_and_is_visible_and_reopens_a_block_outcome(bank: Bank) -> None:
    mario, luigi, _ = ids(bank)
    bank.transfer(mario, luigi, 4, note="rent")
    record = bank.record_outcome(BOWSER)  # Mario pays 5
    assert bank.balances()[mario] == 21
    undo = bank.undo(source="tablet").move.entries[0]
    assert undo.kind is EntryKind.UNDO and undo.payer == BANK and undo.payee == mario
    assert bank.balances()[mario] == 26
    assert bank.outcomes()[0].player_id is None  # the outcome can go to the right player
    bank.assign_outcome(record.id, luigi)
    assert bank.balances()[luigi] == 34 - 5
    bank.undo()  # Luigi's Bowser
    bank.undo()  # the rent
    assert bank.balances() == {pid: 30 for pid in ids(bank)}
    with pytest.raises(Refused, match="nothing to undo"):
        bank.undo()  # opening balances and undos are not undoable
    journal = bank.journal_json()
    assert [e["kind"] for e in journal[3:]] == ["transfer", "block", "undo", "block", "undo",
                                                "undo"]
    assert journal[3]["undone_by"] == journal[8]["id"]


def test_pass_go_pays_the_preset_salary_and_owes_is_flagged(bank: Bank) -> None:
    mario, luigi, _ = ids(bank)
    bank.pass_go(mario)
    assert bank.balances()[mario] == 32
    bank.transfer(luigi, BANK, 35, note="mortgage shortfall")
    players = {p["id"]: p for p in bank.state().to_json()["players"]}
    assert players[luigi]["balance"] == -5 and players[luigi]["owes"] is True
    assert players[mario]["owes"] is False


def test_next_player_follows_turn_order_and_wraps(bank: Bank) -> None:
    mario, luigi, peach = ids(bank)
    assert [bank.next_player() for _ in range(4)] == [luigi, peach, mario, luigi]
    bank.set_current(None)
    assert bank.next_player() == mario


@pytest.mark.parametrize(("call", "problem"), [
    (lambda b, p: b.transfer(999, BANK, 5), "unknown payer 999"),
    (lambda b, p: b.transfer(p[0], BANK, 0), "between 1 and 10000"),
    (lambda b, p: b.transfer(p[0], BANK, -3), "between 1 and 10000"),
    (lambda b, p: b.transfer(p[0], BANK, 10001), "between 1 and 10000"),
    (lambda b, p: b.transfer(p[0], BANK, 2.5), "whole number"),
    (lambda b, p: b.transfer(p[0], BANK, "5"), "whole number"),
    (lambda b, p: b.transfer(p[0], BANK, True), "whole number"),
    (lambda b, p: b.transfer(p[0], p[0], 5), "cannot pay themselves"),
    (lambda b, p: b.transfer(BANK, BANK, 5), "bank cannot pay itself"),
    (lambda b, p: b.transfer(p[0], BANK, 5, note="x" * 201), "at most 200"),
    (lambda b, p: b.pass_go(999), "unknown player"),
    (lambda b, p: b.set_current(999), "unknown player"),
    (lambda b, p: b.assign_outcome(999, p[0]), "unknown outcome"),
    (lambda b, p: b.transfer(p[0], BANK, 5, game_id=42), "unknown game 42"),
    (lambda b, p: b.new_game("monopoly-classic", ["A", "B"]), "unknown edition"),
    (lambda b, p: b.new_game("celebration", ["Solo"]), "2 to 6 players"),
    (lambda b, p: b.new_game("celebration", list("ABCDEFG")), "2 to 6 players"),
    (lambda b, p: b.new_game("celebration", ["Mario", "mario"]), "two players"),
    (lambda b, p: b.new_game("celebration", ["Mario", ""]), "non-empty"),
    (lambda b, p: b.new_game("celebration", ["Mario", "x" * 25]), "1-24 printable"),
    (lambda b, p: b.new_game("celebration", "PQ"), "must be a list"),
    (lambda b, p: b.new_game("celebration", ["A", "B"], colours=[1, None]), "#e52521"),
    (lambda b, p: b.new_game(7, ["A", "B"]), "unknown edition 7; known: celebration"),
    (lambda b, p: b.transfer(p[0], BANK, 5, source="x" * 41), "source must be"),
    (lambda b, p: b.transfer(p[0], BANK, 5, source=3), "source must be"),
    (lambda b, p: b.transfer(p[0], BANK, 5, request_id=""), "request id"),
    (lambda b, p: b.set_card(p[0], "not hex!"), "4-10 bytes of hex"),
    (lambda b, p: b.set_card(p[0], "0A1B"), "4-10 bytes of hex"),
    (lambda b, p: b.set_card(999, "04A1B2C3"), "unknown player"),
])
def test_bad_input_is_refused_with_a_clear_error_and_writes_nothing(bank: Bank, call,  # type: ignore[no-untyped-def]
                                                                   problem: str) -> None:
    before = snapshot(bank)
    with pytest.raises(Refused, match=problem):
        call(bank, ids(bank))
    assert snapshot(bank) == before


def test_players_of_another_game_are_unknown_here(bank: Bank) -> None:
    old_players = ids(bank)
    bank.new_game("celebration", ["Toad", "Daisy"])
    with pytest.raises(Refused, match="unknown payer"):
        bank.transfer(old_players[0], BANK, 1)


def test_a_retried_request_is_written_once(bank: Bank) -> None:
    mario = ids(bank)[0]
    first = bank.transfer(mario, BANK, 3, request_id="tablet-7f3a")
    again = bank.transfer(mario, BANK, 3, request_id="tablet-7f3a")
    assert again == first
    assert bank.balances()[mario] == 27 and len(bank.journal()) == 4


def test_the_journal_is_append_only_in_the_file_itself(bank: Bank, tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "bank.sqlite3")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("UPDATE entries SET amount = 1000")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("DELETE FROM entries")
    db.close()
    assert sum(bank.balances().values()) == 90


def test_durable_settings(bank: Bank, tmp_path: Path) -> None:
    db = bank.db
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_balances_in_sql_equal_the_ledger_sum(bank: Bank) -> None:
    mario, luigi, peach = ids(bank)
    bank.transfer(mario, peach, 12)
    bank.record_outcome(GAME_OVER)
    bank.pass_go(luigi)
    assert bank.balances() == balances(bank.journal(), ids(bank))


@pytest.mark.parametrize("garbage", [b"this is not a database at all" * 100, b""])
def test_a_broken_file_is_moved_aside_and_a_fresh_bank_starts(
    tmp_path: Path, garbage: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "bank.sqlite3"
    path.write_bytes(garbage)
    bank = Bank(path)
    if garbage:
        assert "is unreadable" in caplog.text and "moved it to" in caplog.text
        moved = list(tmp_path.glob("bank.sqlite3.broken-*"))
        assert len(moved) == 1 and moved[0].read_bytes() == garbage
    assert bank.latest_game() is None
    bank.new_game("celebration", ["A", "B"])
    assert bank.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_corrupted_page_is_detected_at_start(tmp_path: Path,
                                               caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "bank.sqlite3"
    bank = Bank(path)
    gid = bank.new_game("celebration", ["A", "B"])
    for _ in range(300):
        bank.transfer(bank.players(gid)[0].id, BANK, 1, note="x" * 150)
    bank.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    bank.close()
    data = bytearray(path.read_bytes())
    for offset in range(4096 * 3, len(data), 4096):  # scribble over b-tree pages
        data[offset + 8: offset + 40] = b"\xff" * 32
    path.write_bytes(bytes(data))
    fresh = Bank(path)
    assert "is unreadable" in caplog.text
    assert fresh.latest_game() is None
    assert list(tmp_path.glob("bank.sqlite3.broken-*"))


def test_a_timer_only_game_keeps_turns_but_moves_no_coins(tmp_path: Path) -> None:

    bank = Bank(tmp_path / "worms.sqlite3")
    bank.new_game("wiggly_worms", ["Ann", "Ben", "Cal"])
    ann, ben, _ = (p.id for p in bank.players())
    for refused in (lambda: bank.transfer(ann, ben, 1), lambda: bank.pass_go(ann)):
        with pytest.raises(Refused, match="Wiggly Worms"):
            refused()
    bank.set_current(ann)
    assert bank.next_player() == ben
    record = bank.record_outcome(BOWSER)
    assert record.entry_id is None
    state = bank.state()
    assert state.game.bank is False and state.game.question_block is False
    assert [p.balance for p in state.players] == [0, 0, 0]
    assert bank.journal() == []
    assert bank.state().undo is not None and str(bank.state().undo.text) == "Turn: Ann -> Ben"
    undone = bank.undo()  # the turn is a move: Next undone gives it back
    assert str(undone.target.text) == "Turn: Ann -> Ben" and bank.current_player() == ann
    with pytest.raises(Refused, match="nothing to undo"):
        bank.undo()  # set_current(ann) changed nothing (Ann was first): no move


def test_export_csv_and_json(bank: Bank) -> None:
    mario, luigi, _ = ids(bank)
    bank.transfer(mario, luigi, 6, note='rent, "Peach\'s Castle"')
    rows = list(csv.DictReader(io.StringIO(export_journal(bank, None, "csv"))))
    assert len(rows) == 4
    assert rows[-1]["from"] == "Mario" and rows[-1]["to"] == "Luigi"
    assert rows[-1]["amount"] == "6" and rows[-1]["note"] == 'rent, "Peach\'s Castle"'
    assert rows[0]["from"] == "Bank" and rows[0]["at"].startswith("2027-01-1")
    doc = json.loads(export_journal(bank, None, "json"))
    assert [p["balance"] for p in doc["players"]] == [24, 36, 30]
    assert doc["entries"][-1]["kind"] == "transfer"


def test_export_command(tmp_path: Path) -> None:
    bank = Bank(tmp_path / "bank.sqlite3")
    first = bank.new_game("celebration", ["Mario", "Luigi"])
    bank.new_game("movie", ["Toad", "Daisy"])
    bank.close()
    config = tmp_path / "c.toml"
    config.write_text(f'[data]\ndir = "{tmp_path}"\n')
    done = run_companion("export", "--config", str(config), "--game", str(first))
    assert done.returncode == 0, done.stderr
    assert "Mario" in done.stdout and "Toad" not in done.stdout
    out = tmp_path / "latest.json"
    done = run_companion("export", "--config", str(config), "--format", "json", "--out", str(out))
    assert done.returncode == 0 and json.loads(out.read_text())["game"]["edition"] == "movie"
    bad = run_companion("export", "--config", str(config), "--game", "99")
    assert bad.returncode == 1 and "unknown game 99" in bad.stderr
    assert "Traceback" not in bad.stderr
    bad = run_companion("export", "--config", str(config), "--format", "xml")
    assert bad.returncode == 2


def test_a_locked_or_newer_bank_is_never_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "bank.sqlite3"
    bank = Bank(path)
    bank.new_game("celebration", ["A", "B"])
    bank.close()
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # another process is in the middle of a write
    second = Bank(path)  # opening needs no write lock
    assert second.latest_game() == 1
    second.close()
    writer.execute("ROLLBACK")
    writer.execute("PRAGMA user_version = 99")
    writer.close()
    with pytest.raises(BankUnavailable, match="newer companion"):
        Bank(path)
    assert not list(tmp_path.glob("*.broken-*"))


OPEN_AND_WRITE = """
import sys, time
from pathlib import Path
from companion.bank import DB_NAME, Bank, BankUnavailable
path, go = Path(sys.argv[1]), Path(sys.argv[2])
while not go.exists():
    time.sleep(0.0005)
bank = Bank(path)
if bank.latest_game() is None:
    bank.new_game("celebration", ["Mario", "Luigi"])
bank.close()
"""


def test_processes_creating_the_bank_at_once_never_move_it_aside(tmp_path: Path) -> None:
    """First boot: daemon, tablet server and an export may all create the file together."""
    for round_ in range(12):
        folder = tmp_path / f"r{round_}"
        folder.mkdir()
        go = folder / "go"
        procs = [subprocess.Popen([sys.executable, "-c", OPEN_AND_WRITE, str(folder / DB_NAME),
                                   str(go)], cwd=ROOT, stderr=subprocess.PIPE, text=True)
                 for _ in range(4)]
        time.sleep(0.3)  # let them reach the barrier
        go.touch()
        errors = [p.communicate(timeout=60)[1] for p in procs]
        assert [p.returncode for p in procs] == [0] * 4, errors
        assert not list(folder.glob("*.broken-*")), errors
        bank = Bank(folder / DB_NAME)
        assert bank.latest_game() is not None
        bank.close()


def test_a_request_id_reused_for_another_operation_is_refused(bank: Bank) -> None:
    mario, luigi, _ = ids(bank)
    bank.transfer(mario, luigi, 3, request_id="r1")
    before = snapshot(bank)
    with pytest.raises(Conflict, match="already used for another operation"):
        bank.transfer(mario, luigi, 4, request_id="r1")  # same id, other amount
    with pytest.raises(Conflict, match="already used for another operation"):
        bank.undo(request_id="r1")
    assert snapshot(bank) == before
    first_undo = bank.undo(request_id="u1")
    assert bank.undo(request_id="u1") == first_undo  # a retried undo undoes once
    assert bank.balances()[mario] == 30


def test_editions_without_a_block_log_outcomes_but_move_no_coins(tmp_path: Path) -> None:
    bank = Bank(tmp_path / "bank.sqlite3")
    bank.new_game("gamer", ["Toad", "Daisy"])
    for outcome in (BOWSER, Outcome(Kind.COINS, coins=6), GAME_OVER):
        record = bank.record_outcome(outcome)
        assert record.player_id is not None and record.entry_id is None
    assert list(bank.balances().values()) == [20, 20]
    assert len(bank.outcomes()) == 3


def test_cards_link_to_one_player_per_game(bank: Bank) -> None:
    mario, luigi, _ = ids(bank)
    assert bank.set_card(mario, "04:a1:b2:c3") == "04A1B2C3"
    before = snapshot(bank)
    with pytest.raises(Refused, match="already belongs to Mario"):
        bank.set_card(luigi, "04A1B2C3")
    assert snapshot(bank) == before
    assert bank.state().players[0].card == "04A1B2C3"
    bank.set_card(mario, None)
    bank.set_card(luigi, "04A1B2C3")
    assert [p.card_uid for p in bank.players()] == [None, "04A1B2C3", None]


def test_disk_full_reports_the_real_error_and_changes_nothing(bank: Bank) -> None:
    mario = ids(bank)[0]
    pages = bank.db.execute("PRAGMA page_count").fetchone()[0]
    bank.db.execute(f"PRAGMA max_page_count = {pages}")
    before = snapshot(bank)
    with pytest.raises(sqlite3.OperationalError, match="full"):
        for _ in range(2000):
            bank.transfer(mario, BANK, 1, note="n" * 200)
    bank.db.execute("PRAGMA max_page_count = 1000000")
    assert bank.balances() == balances(bank.journal(), ids(bank))
    assert len(bank.journal()) >= len(before[0])  # nothing half-written
    bank.transfer(mario, BANK, 1)  # and the bank goes on


def test_a_foreign_database_is_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "bank.sqlite3"
    other = sqlite3.connect(path)
    other.execute("CREATE TABLE games (title TEXT)")
    other.commit()
    other.close()
    bank = Bank(path)
    assert bank.latest_game() is None and list(tmp_path.glob("bank.sqlite3.broken-*"))
    bank.new_game("celebration", ["A", "B"])


def test_read_only_bank_never_changes_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bank.sqlite3"
    path.write_bytes(b"garbage" * 100)
    with pytest.raises(BankUnavailable):
        Bank(path, readonly=True)
    assert path.read_bytes() == b"garbage" * 100 and not list(tmp_path.glob("*.broken-*"))
    path.unlink()
    writer = Bank(path)
    writer.new_game("celebration", ["A", "B"])
    reader = Bank(path, readonly=True)
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        reader.transfer(reader.players()[0].id, BANK, 1)
    assert reader.balances() == writer.balances()


def test_export_keeps_unicode_newlines_and_defuses_formulas(bank: Bank) -> None:
    mario, luigi, _ = ids(bank)
    bank.transfer(mario, luigi, 2, note="Château\nline two, \"quoted\"")
    bank.transfer(luigi, mario, 1, note='=HYPERLINK("http://x")')
    bank.set_current(None)
    bank.record_outcome(Outcome(Kind.POWER_UP))
    rows = list(csv.DictReader(io.StringIO(export_journal(bank, None, "csv"))))
    assert rows[-2]["note"] == 'Château\nline two, "quoted"'
    assert rows[-1]["note"] == '\'=HYPERLINK("http://x")'
    doc = json.loads(export_journal(bank, None, "json"))
    assert doc["entries"][-1]["note"] == '=HYPERLINK("http://x")'  # JSON keeps it exact
    assert doc["outcomes"][-1]["kind"] == "power_up" and not doc["outcomes"][-1]["assigned"]


def test_export_command_bad_arguments_are_clear(tmp_path: Path) -> None:
    Bank(tmp_path / "bank.sqlite3").new_game("celebration", ["Mario", "Luigi"])
    config = tmp_path / "c.toml"
    config.write_text(f'[data]\ndir = "{tmp_path}"\n')
    for args, message, code in [
        (["--out", str(tmp_path / "missing" / "x.csv")], "cannot write", 1),
        (["--out", str(tmp_path)], "cannot write", 1),
        (["--game", "9" * 30], "must be at most", 2),
        (["--game", "0"], "must be at least 1", 2),
    ]:
        done = run_companion("export", "--config", str(config), *args)
        assert done.returncode == code, done.stderr
        assert message in done.stderr and "Traceback" not in done.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    config.write_text(f'[data]\ndir = "{empty}"\n')
    done = run_companion("export", "--config", str(config))
    assert done.returncode == 1 and "no bank at" in done.stderr
    assert "A demo keeps its bank in a scratch folder" in done.stderr  # after a demo: why
    assert list(empty.iterdir()) == []  # nothing created
