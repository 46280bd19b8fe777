"""The table's state: everything a screen, the tablet or a phone shows, in one snapshot."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from companion.bank import contests, gate, mistakes, pages, phones, start, turns, undo
from companion.bank.facts import Facts
from companion.bank.moves import ACTIONS, block, worms
from companion.bank.moves.token import in_jail, where
from companion.bank.ring import read_ring
from companion.core.board_ring import JAIL_CORNER, Ring
from companion.core.editions.house_files import named
from companion.core.editions.scoring import Standing, standings
from companion.core.ledger import BANK, MoveKind
from companion.core.state import GameView, NextCard, PlayerView, TableState

if TYPE_CHECKING:
    from companion.bank.journal import Journal


def state(bank: Journal, game_id: int | None = None) -> TableState:
    """Everything a screen or the tablet shows (one consistent snapshot)."""
    with bank.snapshot():
        return state_of(bank, game_id)


def state_of(bank: Journal, game_id: int | None) -> TableState:
    facts = bank.facts(game_id)
    rules = facts.rules
    money = bank.money(facts.gid)
    last = block.outcome_list(bank, facts, limit=1)
    ended = facts.ending is not None
    table = standings(rules, facts.seats(money))
    won: tuple[int, ...] = ()
    if ended:  # the record of the end: who won and the standings as they were counted
        record = json.loads(facts.ending["data"])  # type: ignore[index]
        won = tuple(record["winners"])
        table = tuple(Standing(**row) for row in record["standings"])
    points = rules.scoring is not None
    linked = phones.linked_players(bank, facts.gid)
    found = facts.contests
    ring = read_ring(bank.db, rules)
    players = tuple(
        PlayerView(p.id, p.name, p.colour, p.seat, money[p.id], p.id == facts.current,
                   p.card_uid, out=p.id in facts.out,
                   points=facts.points.get(p.id, (0, 0))[0] if points else None,
                   cards=facts.points.get(p.id, (0, 0))[1] if points else None,
                   worms=facts.worms.get(p.id, 0) if rules.worms is not None else None,
                   linked=p.id in linked, in_jail=p.id in facts.jailed and p.id not in
                   facts.out, jail_tries=turns.jail_tries(bank.db, facts, p.id),
                   characters=p.characters,
                   owes_to=creditor(bank, facts, p.id) if money[p.id] < 0 else None,
                   won=tuple(c.number for c in found.won.get(p.id, ())) if found else (),
                   position=None if ring is None or len(p.characters) > 1 else
                   JAIL_CORNER if p.id in facts.jailed else where(facts, ring, p.id),
                   tokens=() if ring is None or len(p.characters) < 2 else tuple(
                       (c, JAIL_CORNER if in_jail(facts, p.id, c) else where(facts, ring, p.id, c))
                       for c in p.characters))
        for p in facts.players)
    to_undo, to_redo, version = undo.previews(bank, facts)
    turn = turns.turn_of(bank.db, facts)
    piles = bank.piles(facts.gid) if rules.board is not None or facts.pot is not None else {}
    pot = facts.pot
    files = bank.editions.played(rules.id, facts.options)[1] if rules.id in bank.editions \
        else ()
    return TableState(
        game=GameView(facts.gid, rules.id, rules.name, rules.default_mode.moves_coins,
                      rules.coins, bool(facts.options.get("simultaneous", False)),
                      None if rules.worms is None else worms.worm_target(facts),
                      bool(facts.options.get("dealt")),
                      setup_pending=facts.options.get("setup") == start.PENDING,
                      house=named(pot, files), rules=rules),
        players=players,
        current_player=facts.current,
        last_outcome=last[0] if last else None,
        unassigned=tuple(block.outcome_list(bank, facts, unassigned_only=True)),
        recent=pages.recent(bank, facts.gid),
        ended=ended,
        winners=won,
        standings=table,
        version=version,
        undo=to_undo,
        redo=to_redo,
        board=tuple(piles.items()),
        pot=None if pot is None else (pot.space, piles.get(pot.space, 0)),
        doubles=turns.doubles(bank.db, facts),
        bowser_waits=not ended and turns.bowser_waits(bank.db, facts),
        bowser_won=ended and facts.ending["kind"] == MoveKind.BOWSER_WINS.value,  # type: ignore[index]
        contest=found.current if found is not None else None,
        next_card=next_card(bank, facts) if found is not None and not ended else None,
        requests=mistakes.open_requests(bank, facts),
        ring=ring,
        bananas=tuple(sorted(facts.bananas)),
        holders=tuple(sorted(facts.holders.items())),
        turn_rolled=turns.rolled_to_move(bank.db, facts),
        turn=turn,
        flow=gate.allowed(facts, turn, ACTIONS) if not ended else {},
        **_landing(bank, facts, ring),
    )


def creditor(bank: Journal, facts: Facts, pid: int) -> int | str | None:
    """Whom a player below zero owes: the payee of their latest payment not undone (the one
    that went unpaid: :func:`companion.core.ledger.overdraft` gives its coins back first); the
    Bank for a fee on a pile, or a payee who is out. A fact of the journal, however many
    lines followed it."""
    row = bank.db.execute(
        "SELECT payee, space FROM entries e INDEXED BY entries_by_payer WHERE payer = ? AND"
        " undoes IS NULL AND game_id = ? AND NOT EXISTS (SELECT 1 FROM entries u WHERE"
        " u.undoes = e.id) ORDER BY move_id DESC, id DESC LIMIT 1", (pid, facts.gid)).fetchone()
    if row is None:
        return None
    payee = row["payee"]
    return BANK if payee is None or payee in facts.out else int(payee)


def _landing(bank: Journal, facts: Facts, ring: Ring | None) -> dict[str, Any]:
    """Where the current player's token landed this turn, on a described board (their one
    token), and whether that space's roll was made."""
    if ring is None or facts.current is None:
        return {}
    mine = next((p.characters for p in facts.players if p.id == facts.current), ())
    if len(mine) > 1:
        return {}
    space, rolled = turns.landed(bank.db, facts)
    return {"landed": space, "space_rolled": rolled}


def next_card(bank: Journal, facts: Facts) -> NextCard | None:
    found = facts.contests
    assert found is not None
    number = found.next_number
    values = None if number is None else contests.known_card(bank.db, facts.rules.id,
                                                             number)
    held = tuple(sorted(c.number for cards in found.won.values() for c in cards))
    return NextCard(found.deck.kind.value, found.deck.card, number, values,
                    found.drawn + 1 == len(found.cards), found.rematch_due, held,
                    turns.contest_due(bank.db, facts), found.left)
