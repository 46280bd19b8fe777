"""Games that end, on a real SQLite file: bankruptcy and the last player standing, capped
payments, points and the final score, worms, read-only ended games, undo of a grouped move, and
the in-place upgrade of a real schema-2 bank."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from companion.bank import DB_NAME, Bank
from companion.bank.export import export_journal
from companion.bank.store import SCHEMA_VERSION
from companion.core.ledger import BANK, EntryKind, MoveKind
from companion.core.outcomes import Kind, Outcome
from companion.exc import Conflict, GameEnded, Refused
from tests.conftest import ROOT, StepClock

FIXTURES = ROOT / "tests" / "fixtures"


def new_bank(tmp_path: Path, edition: str, names: list[str]) -> tuple[Bank, list[int]]:
    bank = Bank(tmp_path / DB_NAME, clock=StepClock(1_800_000_000.0, 1))
    bank.new_game(edition, names)
    return bank, [p.id for p in bank.players()]


def table(bank: Bank) -> tuple[object, ...]:
    """Everything a refusal must leave as it was."""
    return (bank.journal(), bank.balances(), bank.current_player(),
            [m.to_json() for m in bank.moves()], bank.state().to_json())


# -- bankruptcy and the last player standing ----------------------------------------------------


def test_bankrupt_to_a_player_gives_them_what_was_left(tmp_path: Path) -> None:
    bank, (mario, luigi, peach) = new_bank(tmp_path, "celebration", ["Mario", "Luigi", "Peach"])
    bank.transfer(luigi, BANK, 26, note="taxes")  # Luigi has 4 left
    move = bank.bankruptcy(luigi, mario)
    assert move.kind is MoveKind.BANKRUPTCY and not move.ends
    assert [(e.payer, e.payee, e.amount, e.kind) for e in move.entries] == [
        (luigi, mario, 4, EntryKind.BANKRUPTCY)]
    assert str(move.text) == "Luigi is bankrupt to Mario: 4 coins to Mario"
    assert bank.balances() == {mario: 34, luigi: 0, peach: 30}
    state = bank.state()
    assert [p.out for p in state.players] == [False, True, False] and not state.ended


def test_a_debt_beyond_what_was_left_is_not_collected(tmp_path: Path) -> None:
    bank, (mario, luigi, _) = new_bank(tmp_path, "celebration", ["Mario", "Luigi", "Peach"])
    bank.transfer(luigi, mario, 37, note="rent with a castle")  # Luigi -7: he had only 30
    bank.bankruptcy(luigi, mario)
    assert bank.balances()[luigi] == 0 and bank.balances()[mario] == 60  # Mario got 30
    bank.transfer(mario, BANK, 70, note="Game Over")  # Mario -10
    bank.bankruptcy(mario, BANK)  # the Bank forgives what he could not pay
    assert bank.balances()[mario] == 0


def test_out_players_are_skipped_and_refused(tmp_path: Path) -> None:
    bank, (mario, luigi, peach, yoshi) = new_bank(tmp_path, "movie",
                                                  ["Mario", "Luigi", "Peach", "Yoshi"])
    bank.set_current(luigi)
    bank.bankruptcy(luigi, BANK)
    assert bank.current_player() == peach  # the turn went on with him
    assert bank.next_player() == yoshi and bank.next_player() == mario
    assert bank.next_player() == peach  # Luigi's seat is skipped
    before = table(bank)
    for refused in (lambda: bank.transfer(luigi, mario, 1), lambda: bank.transfer(mario, luigi, 1),
                    lambda: bank.set_current(luigi), lambda: bank.pass_go(luigi),
                    lambda: bank.jail(luigi), lambda: bank.bankruptcy(luigi, mario),
                    lambda: bank.bankruptcy(mario, luigi), lambda: bank.bankruptcy(mario, mario),
                    lambda: bank.bankruptcy(mario, 999)):
        with pytest.raises(Refused, match=r"out of the game|unknown|themselves"):
            refused()
        assert table(bank) == before


def test_the_last_player_standing_wins_and_the_game_is_read_only(tmp_path: Path) -> None:
    bank, (mario, luigi, peach) = new_bank(tmp_path, "celebration", ["Mario", "Luigi", "Peach"])
    bank.transfer(luigi, peach, 10, note="rent")
    bank.bankruptcy(mario, peach)
    last = bank.bankruptcy(luigi, BANK)
    assert last.ends and last.data["winners"] == [peach]
    assert str(last.text).endswith("Peach wins!")
    state = bank.state()
    assert state.ended and state.winner == peach and state.winners == (peach,)
    assert [(s.player, s.rank, s.coins) for s in state.standings] == [
        (peach, 1, 70), (luigi, 2, 0), (mario, 3, 0)]
    before = table(bank)
    for write in (lambda: bank.transfer(peach, BANK, 1), lambda: bank.pass_go(peach),
                  lambda: bank.next_player(), lambda: bank.set_current(peach),
                  lambda: bank.record_outcome(Outcome(Kind.COINS, 3, (1, 3))),
                  lambda: bank.jail(peach)):
        with pytest.raises(GameEnded, match=r"has ended \(Peach won\).*undo reopens it"):
            write()
        assert table(bank) == before
    bank.set_card(peach, "04A1B2C3")  # a sticker can still be linked for the next game


def test_undo_of_the_last_bankruptcy_reopens_the_game_whole(tmp_path: Path) -> None:
    bank, (mario, luigi, peach) = new_bank(tmp_path, "celebration", ["Mario", "Luigi", "Peach"])
    bank.transfer(luigi, BANK, 25, note="tax")
    bank.bankruptcy(mario, peach)
    bank.set_current(luigi)
    before = bank.state()
    bank.bankruptcy(luigi, peach)  # Luigi's 5 go to Peach: Peach wins
    assert bank.state().ended and bank.current_player() == peach
    undone = bank.undo()
    assert undone.target.kind is MoveKind.BANKRUPTCY and undone.move.entries[0].amount == 5
    after = bank.state()
    assert not after.ended and after.winners == ()
    assert [p.out for p in after.players] == [True, False, False]  # Luigi is back in
    assert after.current_player == luigi  # and it is his turn again
    assert after.to_json()["players"] == before.to_json()["players"]
    bank.undo()  # Mario's bankruptcy too
    assert not any(p.out for p in bank.state().players)
    assert bank.balances() == {mario: 30, luigi: 5, peach: 30}


def test_the_journal_read_whole_tells_each_move_as_its_write_did(tmp_path: Path) -> None:
    """moves() reads the journal in bulk; each move must read as the one-move read made when it
    was written said, an undo included (told in the words of what it undid)."""
    bank, (mario, luigi, peach) = new_bank(tmp_path, "celebration", ["Mario", "Luigi", "Peach"])
    bank.transfer(luigi, BANK, 4, note="tax")
    go = bank.pass_go(peach)
    bank.transfer(mario, luigi, 3, note="rent")
    first, second = bank.undo(), bank.undo()  # the rent, then Peach's GO
    assert second.target.entries == (go,)
    written = [first.target, first.move, second.target, second.move,
               bank.bankruptcy(peach, mario)]
    read = {m.id: m for m in bank.moves()}
    assert len(read) == 7  # the opening coins, two payments, GO, two undos, bankruptcy
    assert [(read[m.id].kind, read[m.id].text, read[m.id].entries, read[m.id].undoes)
            for m in written] == [(m.kind, m.text, m.entries, m.undoes) for m in written]
    rent, undo = read[first.target.id], read[first.move.id]
    assert str(rent.text) == "Mario pays Luigi 3 · rent"
    assert str(undo.text) == "Undo: " + str(rent.text)
    assert str(read[second.move.id].text) == "Undo: Peach passed GO: +2"
    assert (rent.undone_by, undo.undone_by) == (undo.id, None)
    assert read[go.move_id].undone_by == second.move.id


# -- capped payments ("Hang in there!") ---------------------------------------------------------


def test_a_gamer_pays_what_they_have_and_says_so(tmp_path: Path) -> None:
    bank, (toad, daisy, wario) = new_bank(tmp_path, "gamer", ["Toad", "Daisy", "Wario"])
    assert bank.balances() == {toad: 10, daisy: 10, wario: 10}
    paid = bank.transfer(toad, daisy, 15, note="rent")
    assert (paid.asked, paid.moved, paid.capped) == (15, 10, True)
    assert str(paid.message) == "Toad had only 10 of 15 coins: paid 10"
    assert bank.balances() == {toad: 0, daisy: 20, wario: 10}
    coins = (bank.journal(), bank.balances())
    broke = bank.transfer(toad, wario, 3)
    assert broke.entry is None and broke.moved == 0
    assert str(broke.message) == "Toad has no coins: nothing to pay. Hang in there!"
    assert (bank.journal(), bank.balances()) == coins  # not a coin moved (the move is kept)
    with pytest.raises(Refused, match="nobody goes bankrupt in Monopoly Gamer"):
        bank.bankruptcy(toad, daisy)
    with pytest.raises(Refused, match="Toad is not in Jail: the jail fee is only a way out"):
        bank.jail(toad)
    bank.set_jail(toad, True)
    bank.set_jail(daisy, True)
    with pytest.raises(Refused, match="Toad has 0 coins and can't pay the jail fee of 5"):
        bank.jail(toad)
    assert bank.jail(daisy).amount == 5


def test_gamer_seats_two_to_four_with_the_rulebooks_coins(tmp_path: Path) -> None:
    bank = Bank(tmp_path / DB_NAME)
    with pytest.raises(Refused, match="a game needs 2 to 4 players, got 5"):
        bank.new_game("gamer", ["A", "B", "C", "D", "E"])
    bank.new_game("mario_kart", ["A", "B"])
    assert set(bank.balances().values()) == {20}  # "Each player starts with 20 Coins."
    bank.new_game("mario_kart", ["A", "B", "C"])
    assert set(bank.balances().values()) == {10}


# -- points and the final score -----------------------------------------------------------------


def test_the_mario_kart_worked_example_through_the_bank(tmp_path: Path) -> None:
    bank, (toad, daisy) = new_bank(tmp_path, "mario_kart", ["Toad", "Daisy"])
    bank.transfer(toad, BANK, 7, note="entry fees")  # Toad: 13 coins
    bank.set_points(toad, 70 + 60, 5)  # 3 Properties (70), 2 Grand Prix cards (60)
    bank.set_points(daisy, 90, 4)
    state = bank.state()
    assert [(p.points, p.cards) for p in state.players] == [(130, 5), (90, 4)]
    # "The game ends immediately when the final Race is over": not by decree while cards
    # remain, only by the house rule the table names.
    with pytest.raises(Refused, match="its final Grand Prix card has been played, and 8 cards "
                                      "are still to play"):
        bank.end_game()
    assert not bank.state().ended
    end = bank.end_game(early=True)
    assert end.kind is MoveKind.END and end.ends and str(end.text) == \
        "The final score (house rule: ended before the last card): Toad wins!"
    state = bank.state()
    assert state.ended and state.winner == toad
    rows = {s.player: s for s in state.standings}
    assert (rows[toad].coins, rows[toad].points, rows[toad].total) == (13, 130, 150)
    assert (rows[daisy].total, rows[daisy].rank) == (90 + 40, 2)
    with pytest.raises(GameEnded):
        bank.set_points(daisy, 200, 5)
    doc = json.loads(export_journal(bank, None, "json"))
    assert doc["winners"] == [toad] and doc["standings"][0]["total"] == 150
    assert doc["moves"][-1]["kind"] == "end"
    _journal, standings_table = export_journal(bank, None, "csv").split("\n\n")
    assert standings_table.splitlines() == [
        "rank,player,coins,points,total,cards,worms,out",
        "1,Toad,13,130,150,5,,False", "2,Daisy,20,90,130,4,,False"]
    bank.undo()  # the end: open again, the typed points stay
    assert not bank.state().ended and bank.state().players[0].points == 130


def test_points_are_refused_where_the_game_is_not_won_on_points(tmp_path: Path) -> None:
    bank, (mario, _, _) = new_bank(tmp_path, "celebration", ["Mario", "Luigi", "Peach"])
    before = table(bank)
    with pytest.raises(Refused, match="is not won on points"):
        bank.set_points(mario, 10, 1)
    with pytest.raises(Refused, match="ends when every other player has gone bankrupt"):
        bank.end_game()
    assert table(bank) == before
    gamer, (toad, _) = new_bank(tmp_path / "g", "gamer", ["Toad", "Daisy"])
    for points, cards, words in ((-1, 0, "points must be"), (10, 25, "cards must be a whole "
                                                               "number from 0 to 24"),
                                 ("12", 1, "points must be"), (True, 1, "points must be")):
        with pytest.raises(Refused, match=words):
            gamer.set_points(toad, points, cards)


# -- worms --------------------------------------------------------------------------------------


def test_the_first_to_find_all_five_worms_wins(tmp_path: Path) -> None:
    bank, (ann, ben, cal) = new_bank(tmp_path, "wiggly_worms", ["Ann", "Ben", "Cal"])
    bank.set_worms(ann, 3)
    bank.set_worms(ben, 4)
    bank.set_worms(ann, 2)  # tap to remove: one was not a match after all
    assert [p.worms for p in bank.state().players] == [2, 4, 0]
    with pytest.raises(Refused, match="found must be a whole number from 0 to 5"):
        bank.set_worms(cal, 6)
    won = bank.set_worms(ben, 5)
    assert won.ends and str(won.text) == "Ben has found 5 worms: Ben wins!"
    state = bank.state()
    assert state.ended and state.winner == ben and state.game.worms == 5
    assert [(s.player, s.worms, s.rank) for s in state.standings] == [
        (ben, 5, 1), (ann, 2, 2), (cal, 0, 3)]
    with pytest.raises(GameEnded):
        bank.set_worms(cal, 5)
    bank.undo()
    assert not bank.state().ended and bank.state().players[1].worms == 4


def test_worms_and_at_once_only_in_wiggly_worms(tmp_path: Path) -> None:
    bank, (mario, _, _) = new_bank(tmp_path, "celebration", ["Mario", "Luigi", "Peach"])
    with pytest.raises(Refused, match="has no worms to find"):
        bank.set_worms(mario, 1)
    with pytest.raises(Refused, match="has no mode where everyone plays at once"):
        bank.set_options(simultaneous=True)
    worms, _ = new_bank(tmp_path / "w", "wiggly_worms", ["Ann", "Ben"])
    assert worms.set_options(simultaneous=True) == {"simultaneous": True, "dealt": False}
    assert worms.state().game.simultaneous
    with pytest.raises(Refused, match="true or false"):
        worms.set_options(simultaneous="yes")


# -- utility rent ---------------------------------------------------------------------------------


def test_utility_rent_moves_the_roll_from_payer_to_owner(tmp_path: Path) -> None:
    bank, (mario, luigi, _) = new_bank(tmp_path, "celebration", ["Mario", "Luigi", "Peach"])
    rent = Outcome(Kind.RENT, 8, (4,), "utility_rent")
    record = bank.record_outcome(rent, params={"payer": luigi, "owner": mario, "utilities": 2})
    assert record.player_id == luigi and record.params["owner"] == mario
    assert bank.balances()[luigi] == 22 and bank.balances()[mario] == 38
    assert str(record.headline) == "RENT 8"
    assert str(record.description).endswith("rent 4 x 2 = 8 coins")
    bank.undo()
    assert bank.balances()[mario] == 30
    with pytest.raises(Refused, match="utility rent is paid by the player it was rolled for"):
        bank.assign_outcome(record.id, mario)
    with pytest.raises(Refused, match="payer cannot own the utility"):
        bank.record_outcome(rent, params={"payer": luigi, "owner": luigi, "utilities": 1})


# -- upgrading a real schema-2 bank ---------------------------------------------------------------


def test_a_schema_2_bank_is_upgraded_in_place_and_keeps_every_coin(tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    shutil.copy(FIXTURES / "bank-schema2.sqlite3", path)  # made by the schema-2 code
    expected = json.loads((FIXTURES / "bank-schema2.expected.json").read_text())
    bank = Bank(path)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 11
    assert db.execute("SELECT 1 FROM sqlite_master WHERE name = 'outcomes_by_kind'").fetchone()
    for gid in (1, 2):
        want = expected[str(gid)]
        state = bank.state(gid)
        assert state.game.edition == want["edition"]
        assert [{"id": p.id, "name": p.name, "balance": p.balance, "current": p.current,
                 "card": p.card} for p in state.players] == want["players"]
        assert [{k: v for k, v in e.items() if k != "move"} for e in bank.journal_json(gid)] \
            == want["journal"]
        assert [m.id for m in bank.moves(gid)] == [  # the openings are one move
            e["id"] for e in want["journal"] if e["kind"] != "opening"
            or e["id"] == min(o["id"] for o in want["journal"] if o["kind"] == "opening")]
        for was, now in zip(want["outcomes"], bank.outcomes(gid), strict=True):
            assert (now.id, now.outcome.kind.value, now.player_id, now.entry_id) == (
                was["id"], was["kind"], was["player"], was["entry"])
    assert bank.card_actions() == expected["card_actions"]
    # Bowser and Game Over now carry the price schema 2 charged for them in Celebration:
    assert {o.outcome.kind: o.outcome.coins for o in bank.outcomes(1)}[Kind.GAME_OVER] == 10
    # The upgraded bank plays on: the game-1 tax undone long ago stays undone, a new write and
    # its undo work, and a retried schema-2 request id is still known.
    mario = bank.players(2)[0].id
    bank.pass_go(mario, game_id=2)
    undone = bank.undo(game_id=2)
    assert undone.target.kind is MoveKind.PASS_GO
    with pytest.raises(Conflict, match="already used for another operation"):
        bank.transfer(mario, BANK, 1, request_id="req-rent-1", game_id=2)
    # A request sent before the upgrade and retried after it is answered, not paid again:
    rent = bank.transfer(2, 1, 12, note="rent Koopa Troopa", request_id="req-rent-1",
                         game_id=1)
    assert rent.entry is not None and rent.entry.id == 6
    assert bank.pass_go(3, request_id="req-go-1", game_id=1).id == 7
    assert [str(m.text) for m in bank.moves(1)][-2] == "Undo: Peach pays the Bank 4 · tax"
    bank.close()
    assert Bank(path).balances(1) == {1: 45, 2: 3, 3: 32}  # and again after reopening


def test_export_reads_an_older_bank_without_changing_it(tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    shutil.copy(FIXTURES / "bank-schema2.sqlite3", path)
    before = path.read_bytes()
    bank = Bank(path, readonly=True)
    assert bank.balances(1) == {1: 45, 2: 3, 3: 32}
    bank.close()
    assert path.read_bytes() == before


# -- found in review: who gives back what a bankrupt player did not have --------------------------


def test_a_deficit_to_the_bank_is_written_off_not_taken_from_the_creditor(tmp_path: Path) -> None:
    bank, (a, b, c) = new_bank(tmp_path, "celebration", ["Ann", "Bob", "Cy"])
    bank.transfer(a, BANK, 35, note="Game Over and Bowser")  # Ann -5: the Bank got it
    move = bank.bankruptcy(a, b)
    assert bank.balances() == {a: 0, b: 30, c: 30}  # Bob is not charged for the Bank's coins
    assert [(e.payer, e.payee, e.amount) for e in move.entries] == [(BANK, a, 5)]


def test_a_deficit_comes_back_from_whoever_got_it_newest_first(tmp_path: Path) -> None:
    bank, (a, b, c) = new_bank(tmp_path, "celebration", ["Ann", "Bob", "Cy"])
    bank.transfer(a, c, 20, note="rent")  # Ann 10
    bank.transfer(a, b, 16, note="rent")  # Ann -6: Bob got 6 Ann did not have
    move = bank.bankruptcy(a, c)
    assert bank.balances() == {a: 0, b: 40, c: 50}  # Cy got what there was: 20
    assert str(move.text) == "Ann is bankrupt to Cy (Bob gives back 6)"
    bank.undo()
    assert bank.balances() == {a: -6, b: 46, c: 50}


def test_retries_of_a_payment_by_the_current_player_are_answered_after_the_turn_moves(
        tmp_path: Path) -> None:
    bank, (a, b, _) = new_bank(tmp_path, "celebration", ["Ann", "Bob", "Cy"])
    bank.set_jail(a, True)  # "Your turn is now over": Bob's turn, then Cy's, then Ann's again
    bank.next_player()
    bank.next_player()
    first = bank.jail(request_id="k1")  # the current player, Ann, pays her way out
    bank.next_player()
    assert bank.jail(request_id="k1") == first and bank.balances()[a] == 25  # not Bob
    go = bank.pass_go(request_id="k2")
    assert go.payee == b and bank.pass_go(request_id="k2") == go


def test_a_payment_of_nothing_is_kept_so_a_retry_pays_nothing_later(tmp_path: Path) -> None:
    bank, (toad, daisy, _) = new_bank(tmp_path, "gamer", ["Toad", "Daisy", "Wario"])
    bank.transfer(toad, BANK, 10)
    nothing = bank.transfer(toad, daisy, 5, request_id="r2")
    assert nothing.entry is None and "Hang in there!" in str(nothing.message)
    bank.transfer(daisy, toad, 8)
    again = bank.transfer(toad, daisy, 5, request_id="r2")  # the retry: still nothing
    assert again.entry is None and again.message == nothing.message
    assert bank.balances()[toad] == 8
    assert str(bank.moves()[-2].text) == "Toad has no coins: nothing to pay. Hang in there!"
    bank.undo()  # undoes Daisy's 8: the payment of nothing is passed over
    assert bank.balances()[toad] == 0


def test_a_game_of_an_edition_no_longer_known_says_so(tmp_path: Path) -> None:
    import tomllib

    from companion.core.editions import Editions, editions, parse
    from companion.exc import Unavailable

    text = (ROOT / "companion/core/editions/celebration.toml").read_text()
    house = parse(tomllib.loads(text.replace('id = "celebration"', 'id = "house"')), "house")
    with_house = Editions({**dict(editions()), "house": house})
    bank = Bank(tmp_path / DB_NAME, rulesets=with_house)
    bank.new_game("house", ["Ann", "Bob"])
    bank.close()
    again = Bank(tmp_path / DB_NAME)  # the house rules are gone
    with pytest.raises(Unavailable, match="edition 'house', which this companion does not know"):
        again.state()
    again.new_game("celebration", ["Ann", "Bob"])  # a new game plays on
    assert again.state().game.edition == "celebration"


def test_a_card_follows_its_player_from_the_game_being_played(tmp_path: Path) -> None:
    """After an earlier game is resumed, a new game takes its cards from that game, not from
    the newest."""
    bank = Bank(tmp_path / DB_NAME)
    first = bank.new_game("celebration", ["Mario", "Luigi"])
    bank.set_card(bank.players(first)[0].id, "04A224B9", first)
    bank.new_game("celebration", ["Ann", "Bob"])
    bank.resume_game(first)
    third = bank.new_game("celebration", ["Mario", "Peach"])
    assert [(p.name, p.card_uid) for p in bank.players(third)] == [("Mario", "04A224B9"),
                                                                   ("Peach", None)]


def test_an_upgraded_file_has_the_tables_and_columns_a_new_file_has(tmp_path: Path) -> None:
    """The schema a new file gets and the one the in-place upgrades build share their parts:
    the same tables with the same columns, whichever way the file came."""
    def shape(path: Path) -> dict[str, list[tuple[str, str, int]]]:
        db = sqlite3.connect(path)
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type ="
                                           " 'table' AND name NOT LIKE 'sqlite_%'")]
        return {t: sorted((c[1], c[2], c[3]) for c in db.execute(f"PRAGMA table_info({t})"))
                for t in tables}

    upgraded = tmp_path / "old" / DB_NAME
    upgraded.parent.mkdir()
    shutil.copy(FIXTURES / "bank-schema2.sqlite3", upgraded)
    Bank(upgraded).close()
    Bank(tmp_path / DB_NAME).close()
    assert shape(upgraded) == shape(tmp_path / DB_NAME)
