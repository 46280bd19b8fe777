"""The block's outcomes: each press kept, then applied to a player (coins, Jail, a contest's
roll) or left for the banker to give."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from companion.bank.facts import Facts, next_seat
from companion.bank.kinds import Move
from companion.bank.moves import coins, contest, jail, token, turn
from companion.bank.ring import face_params, read_ring
from companion.bank.start import PENDING
from companion.bank.touch import TURN, Touch, capped, drawn, touch
from companion.core.actions import ID as PLAYER
from companion.core.actions import Action, Field
from companion.core.editions.house import OUTCOME_PAYMENT
from companion.core.editions.modes import Mode, check_arming, face_of
from companion.core.ledger import (
    BANK,
    JAIL_WHY,
    EntryKind,
    MoveKind,
    check_amount,
    check_source,
    is_id,
    jail_change,
    outcome_movements,
)
from companion.core.outcomes import Kind, Outcome
from companion.core.state import MoveView, OutcomeView
from companion.exc import Refused, shown
from companion.i18n.said import Said, say, stored, texts

if TYPE_CHECKING:
    from companion.bank.journal import Journal


class Current:
    """The game's current player, whoever that is when the write happens."""


CURRENT = Current()


def outcome_of(row: sqlite3.Row) -> Outcome:
    params = json.loads(row["params"])
    return Outcome(Kind(row["kind"]), coins=row["coins"], rolls=tuple(json.loads(row["rolls"])),
                   mode=row["mode"], step=params.get("step", 0),
                   bowser_waits=bool(params.get("bowser_waits")))


def record_outcome(bank: Journal, outcome: Outcome, *, params: Mapping[str, int] | None = None,
                   source: str = "button", at: float | None = None,
                   game_id: int | None = None, player: int | Current | None = CURRENT,
                   press_id: str | None = None, held: bool = False) -> OutcomeView:
    """Keep an outcome and apply it: to ``player`` (by default the current player;
    unassigned if nobody is, or while a fresh install awaits its setup), or for utility rent
    to the payer it was armed with.

    ``press_id`` makes it once only: a press held while the disk refused it and retried
    later (even after a restart) is banked once. A ``held`` press whose game has ended
    meanwhile, or whose player is out, is kept unassigned: nothing of it is lost."""
    source = check_source(source)
    with bank.write() as db:
        if press_id is not None:
            row = db.execute("SELECT id, game_id FROM outcomes WHERE press_id = ?",
                             (press_id,)).fetchone()
            if row is not None:
                return outcome_view(bank, row["id"], bank.facts(row["game_id"]))
        late = held
        facts = bank.facts(game_id) if late else bank.open_facts(game_id)
        mode = facts.rules.find_mode(outcome.mode)
        if late and (mode is None or not mode.could_draw(outcome, params)):  # a page's copy
            raise Refused(say("a press given back is not one its table can draw ({label})",
                              label=shown(outcome.label)))
        clean: dict[str, Any] = {}
        who = facts.current if isinstance(player, Current) else player
        if mode is not None and mode.needs:
            clean = check_arming(mode, params or {}, tuple(facts.ids if late else
                                                           facts.active),
                                 frozenset(facts.jailed), late=late)
            who = clean.get("payer", clean.get("leader"))
        if contest.is_roll(outcome):  # the fighter's or the racer's roll, if still due
            wanted = (params or {}).get("player")
            found = facts.contests
            clean = {"player": wanted} if is_id(wanted) else {}
            if found is not None and found.current_move is not None:
                clean["contest"] = found.current_move  # it counts in this contest only
            who = wanted if facts.ending is None and contest.roller(bank, facts) == wanted \
                and wanted is not None else None
        if facts.options.get("setup") == PENDING:  # a fresh install's stand-in players:
            who = None  # nobody is named yet, the press is kept for who starts (start.py)
        if late and (facts.ending is not None or who not in facts.active
                     or clean.get("owner", who) not in facts.active
                     or clean.get("teammate") not in (None, *facts.active)):
            who = None  # kept for the banker to give to someone (or to see)
        kept = {**clean, "step": outcome.step} if outcome.step else dict(clean)
        if outcome.kind is Kind.MOVE:  # the Power-up face, as the table's faces read it
            ring = read_ring(db, facts.rules)
            face, face_name = face_of(outcome, face_params(facts.rules, ring.faces)
                                      if ring is not None else {})
            if face:
                kept.update(face=face, face_name=face_name)
        if outcome.bowser_waits:
            kept["bowser_waits"] = 1
        when = bank.clock() if at is None else at
        outcome_id = db.execute(
            "INSERT INTO outcomes (game_id, at, mode, kind, coins, rolls, params, source,"
            " press_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (facts.gid, when, outcome.mode, outcome.kind.value, outcome.coins,
             json.dumps(list(outcome.rolls)), json.dumps(kept), source,
             press_id)).lastrowid
        assert outcome_id is not None
        if who is None:
            return outcome_view(bank, outcome_id, facts)
        return apply(bank, db, facts, outcome_id, who, source)


def assign_outcome(bank: Journal, outcome_id: object, player: object, *, source: str = "",
                   game_id: int | None = None) -> OutcomeView:
    """Give an unassigned outcome to a player: once, unless an undo takes it back."""
    source = check_source(source)
    with bank.write() as db:
        facts = bank.open_facts(game_id)
        row = None
        if is_id(outcome_id):
            row = db.execute("SELECT * FROM outcomes WHERE id = ? AND game_id = ?",
                             (outcome_id, facts.gid)).fetchone()
        if row is None:
            raise Refused(say("unknown outcome {value}", value=shown(outcome_id)))
        if row["player_id"] is not None:
            raise Refused(say("outcome {id} is already assigned", id=outcome_id))
        params = json.loads(row["params"])
        pid = bank.in_game(facts, player)
        if params.get("payer") not in (None, pid):
            raise Refused(say("utility rent is paid by the player it was rolled for"))
        if params.get("leader") not in (None, pid):
            raise Refused(say("a battle's outcome goes to the player who led it"))
        if contest.is_roll(outcome_of(row)) and (
                contest.roller(bank, facts) != pid or facts.contests is None or
                params.get("contest") != facts.contests.current_move):
            raise Refused(say("a contest's roll goes to the player whose roll is due, in "
                              "the fight or race it was rolled in"))
        return apply(bank, db, facts, row["id"], pid, source)


def apply(bank: Journal, db: sqlite3.Connection, facts: Facts, outcome_id: int, player: int,
          source: str) -> OutcomeView:
    row = db.execute("SELECT * FROM outcomes WHERE id = ?", (outcome_id,)).fetchone()
    outcome = outcome_of(row)
    params = json.loads(row["params"])
    owner = params.get("owner")
    if owner is not None:
        owner = bank.in_game(facts, owner, "owner")
    teammate = params.get("teammate")
    if teammate not in facts.active:
        teammate = None  # out since: nobody to pay
    db.execute("UPDATE outcomes SET player_id = ? WHERE id = ?", (player, outcome_id))
    mode = facts.rules.find_mode(outcome.mode)
    # Only a mode of this edition moves coins (an outcome from an older companion in an
    # edition without a block is kept and logged, as it was).
    movements = outcome_movements(outcome, player, owner, teammate) \
        if facts.rules.coins and mode is not None else []
    described = mode.describe(outcome, params) if mode is not None else outcome.label
    note = str(described)  # the entry's note: English; the move keeps its Said too
    change = jail_change(outcome) if facts.rules.jail_fee is not None else None
    if contest.is_roll(outcome):
        contest.rolled(bank, db, facts, outcome_id, outcome, player, source)
    elif outcome.kind is Kind.MOVE:  # the token moves (nothing, if it can't: kept as rolled)
        token.rolled(bank, db, facts, player, outcome.rolls[0], source, outcome_id,
                     str(params.get("face", "")))
    elif change is not None and (player in facts.jailed) != change:
        # "Your turn then ends": the turn passes with the move (one undo for both).
        passes = turn.ends(db, facts, player) if change else {}
        move = jail.jailed(bank, db, facts, player, change, JAIL_WHY[outcome.kind], source,
                           None, {"outcome": outcome_id, **passes})
        for payer, payee, amount in movements:
            bank.add_entry(db, facts.gid, move, payer, payee, check_amount(amount),
                           EntryKind.BLOCK, note, source, outcome_id=outcome_id,
                           space=_pot(facts, outcome, payee))
    elif outcome.kind is Kind.JAIL_STAY and player == facts.current and \
            len(facts.active) > 1:  # no doubles from Jail: stay, and the turn is over
        turn.pass_turn(bank, db, facts, next_seat(facts, player), source, None, "jail")
    elif len(movements) == 1:
        payer, payee, amount = movements[0]
        coins.pay(bank, db, facts, MoveKind.BLOCK, EntryKind.BLOCK, payer, payee,
                  check_amount(amount), note=note, source=source, request_id=None,
                  data={"outcome": outcome_id, **texts(note=described)},
                  outcome_id=outcome_id, subject=player, space=_pot(facts, outcome, payee))
    elif movements:  # a won battle: leader and teammate, one move
        move = bank.add_move(db, facts.gid, MoveKind.BLOCK, player=player,
                             data={"outcome": outcome_id, **texts(note=described)},
                             note=note, source=source)
        for payer, payee, amount in movements:
            bank.add_entry(db, facts.gid, move, payer, payee, check_amount(amount),
                           EntryKind.BLOCK, note, source, outcome_id=outcome_id)
    return outcome_view(bank, outcome_id, facts)


def _pot(facts: Facts, outcome: Outcome, payee: object) -> str | None:
    """Where an outcome's payment to the Bank goes: the Free Parking pot while it is on and
    takes it (Bowser, Game Over, the Piranha Plant, the jail fee), else the Bank."""
    payment = OUTCOME_PAYMENT.get(outcome.kind)
    return facts.pot_space(payment) if payment is not None and payee == BANK else None


def outcomes(bank: Journal, game_id: int | None = None, *, unassigned_only: bool = False,
             limit: int | None = None) -> list[OutcomeView]:
    """Outcomes, newest first."""
    return outcome_list(bank, bank.facts(game_id), unassigned_only, limit)


def outcome_list(bank: Journal, facts: Facts, unassigned_only: bool = False,
                 limit: int | None = None) -> list[OutcomeView]:
    sql = "SELECT id FROM outcomes WHERE game_id = ?"
    if unassigned_only:
        sql += " AND player_id IS NULL"
    sql += " ORDER BY id DESC"
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    return [outcome_view(bank, row["id"], facts)
            for row in bank.db.execute(sql, (facts.gid,)).fetchall()]


def outcome_view(bank: Journal, outcome_id: int, facts: Facts) -> OutcomeView:
    row = bank.db.execute(
        "SELECT o.*, (SELECT MAX(e.id) FROM entries e WHERE e.outcome_id = o.id AND"
        " e.kind = 'block') AS entry_id FROM outcomes o WHERE o.id = ?",
        (outcome_id,)).fetchone()
    outcome = outcome_of(row)
    mode: Mode | None = facts.rules.find_mode(outcome.mode)
    params = json.loads(row["params"])
    words = ("", "", outcome.label) if mode is None else (
        mode.headline(outcome), mode.instruction(outcome, params),
        mode.describe(outcome, params))
    return OutcomeView(row["id"], row["game_id"], row["at"], outcome, row["source"],
                       row["player_id"],
                       row["entry_id"] if row["player_id"] is not None else None,
                       json.loads(row["params"]), *words)


def _block_text(move: MoveView, facts: Facts) -> str | Said:
    if not move.entries:
        return move.note or move.kind.value
    e = move.entries[0]
    payer_is_bank = e.payer == BANK
    whose = facts.name(e.payee if payer_is_bank else e.payer)
    note = stored(move.data, "note") or e.note  # its Said (in any language) when kept
    if note:
        return say("{name}: {note}", name=whose, note=note)
    if payer_is_bank:
        return say("{name} +{amount}", name=whose, amount=e.amount)
    return say("{name} -{amount}", name=whose, amount=e.amount)


def _block_touches(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> Touch:
    """An outcome's coins: given to a player (on their turn, as the table rolled it); where
    payments are capped, what the player paid was what they had."""
    changes, reads = drawn(row, data)
    return touch(changes=changes, reads=[TURN, *capped(facts, row["player_id"]), *reads])


def _assigned(record: OutcomeView, _fields: Mapping[str, Any]) -> tuple[Any, int]:
    return record.to_json(), 200


WRITES = (record_outcome, assign_outcome, outcomes)
ACTIONS = (
    Action("assign_outcome", assign_outcome, route="POST /api/assign", event="assign",
           keyed=False, answer=_assigned, answers="Outcome",
           fields=(Field("outcome", PLAYER, "a waiting outcome's id (the state's "
                         "unassigned)", arg="outcome_id"), Field("player", PLAYER)),
           doc="Give a waiting (unassigned) block outcome to a player."),
)
"""The block's request (its presses come from the block, not from a request)."""

MOVES = (Move(MoveKind.BLOCK, _block_text, redoable=True, touches=_block_touches),)
