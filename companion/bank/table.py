"""The table's state: everything a screen, the tablet or a phone shows, in one snapshot."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from companion.bank import contests, mistakes, pages, phones, start, turns, undo
from companion.bank.facts import Facts
from companion.bank.moves import block, worms
from companion.bank.moves.token import in_jail, where
from companion.bank.ring import read_ring
from companion.core.board_ring import JAIL_CORNER
from companion.core.editions.house_files import named
from companion.core.editions.scoring import Standing, standings
from companion.core.ledger import MoveKind
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
                   won=tuple(c.number for c in found.won.get(p.id, ())) if found else (),
                   position=None if ring is None or len(p.characters) > 1 else
                   JAIL_CORNER if p.id in facts.jailed else where(facts, ring, p.id),
                   tokens=() if ring is None or len(p.characters) < 2 else tuple(
                       (c, JAIL_CORNER if in_jail(facts, p.id, c) else where(facts, ring, p.id, c))
                       for c in p.characters))
        for p in facts.players)
    to_undo, to_redo, version = undo.previews(bank, facts)
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
    )


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
