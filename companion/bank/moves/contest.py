"""Gamer, Mario Kart: the Boss fights and Races, each step one move (their cards' numbers typed
once and kept; the rolls come from the block)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from companion.bank import contests as kept
from companion.bank.contests import Contests
from companion.bank.facts import Facts
from companion.bank.kinds import Move
from companion.bank.moves import ending, jail
from companion.bank.touch import CONTEST, TURN, Fact, Touch, drawn, out, touch
from companion.bank.touch import coins as balance
from companion.bank.touch import jail as in_jail
from companion.core.actions import COUNT, TEXT, Action, Field, Flow
from companion.core.actions import ID as PLAYER
from companion.core.editions.contests import (
    BossCard,
    ContestKind,
    Fight,
    PrixCard,
    Race,
    seat_order,
)
from companion.core.flow import Turn
from companion.core.ledger import BANK, EntryKind, MoveKind, and_joined, check_source
from companion.core.outcomes import Kind, Outcome
from companion.core.state import MoveView
from companion.exc import Refused, shown
from companion.i18n.said import Said, joined, say, say_n

if TYPE_CHECKING:
    from companion.bank.journal import Journal


STEPS = {ContestKind.BOSS: ("open", "fight", "pass", "close"),
           ContestKind.RACE: ("open", "enter", "start", "close")}
"""What ``POST /api/boss`` and ``POST /api/race`` take (the rolls come from the block)."""
CARD_FIELDS = {ContestKind.BOSS: {"cost", "required", "pay_to", "bonus", "points"},
               ContestKind.RACE: {"fee", "prizes", "points"}}
"""What a card typed by the table may hold: the numbers printed on it."""


def contest(bank: Journal, kind: object, action: object, *, player: object = None,
            card: object = None, rematch: object = None, source: str = "",
            request_id: str | None = None, game_id: int | None = None) -> Any:
    """A step of a Boss fight (``open``, ``fight``, ``pass``, ``close``) or a Race
    (``open``, ``enter``, ``start``, ``close``); the rolls come from the block."""
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, MoveKind.CONTEST, game_id, action=action,
                             asked=player)
        if replay is not None:
            return bank.move_view(replay["id"])
        facts = bank.open_facts(game_id)
        deck = facts.rules.contest
        if deck is None or deck.kind.value != kind:
            name = Said(facts.rules.name)
            raise Refused(say("{edition} has no Boss fights", edition=name) if kind == "boss"
                          else say("{edition} has no Races", edition=name))
        if action not in STEPS[deck.kind]:
            raise Refused(say("action must be one of {actions}, got {value}",
                              actions=joined(STEPS[deck.kind]), value=shown(action)))
        found = facts.contests
        assert found is not None
        if action == "open":
            return open_card(bank, db, facts, found, player, card, rematch, source,
                             request_id)
        for key, value in (("card", card), ("rematch", rematch)):
            if value is not None:
                raise Refused(say("{key} is only for opening a card, not for {action}",
                                  key=key, action=action))
        if action in ("start", "close") and player is not None:
            raise Refused(say("{action} takes no player", action=action))
        current = found.current
        if current is None:
            raise Refused(say("no {card} card is open: open one first", card=Said(deck.card)))
        data: dict[str, Any] = {"action": action, "contest": found.current_move,
                                "player": player, "asked": player}
        if action == "close":
            return close_card(bank, db, facts, found, data, source, request_id)
        if action == "start":
            assert isinstance(current, Race)
            jailed = [facts.name(p) for p in current.entrants if p in facts.jailed]
            if jailed:
                raise Refused(say("{names} went to Jail after entering: a player in Jail "
                                  "may not take part in Races", names=and_joined(jailed)))
            after = current.start()
            move = bank.add_move(db, facts.gid, MoveKind.CONTEST, data=data,
                                 note=f"{deck.card} {current.card.number}: the race "
                                 "starts", source=source, request_id=request_id)
            prizes(bank, db, facts, move, after, source)
            return bank.move_view(move, facts)
        pid = bank.in_game(facts, player)
        if pid in facts.jailed and action in ("fight", "enter"):
            name = facts.name(pid)
            raise Refused(say("{name} is in Jail: a player in Jail may not take part in "
                              "Boss Fights (pass for them)", name=name) if action == "fight"
                          else say("{name} is in Jail: a player in Jail may not take part "
                                   "in Races", name=name))
        if isinstance(current, Fight):
            after = current.fight(pid) if action == "fight" else current.passes(pid)
            fee = current.card.cost if action == "fight" else 0
        else:
            after = current.enter(pid)
            fee = current.card.fee
        money = bank.money(facts.gid)
        if fee and money[pid] < fee:
            name, has = facts.name(pid), money[pid]
            raise Refused(say_n("{name} can't afford the {n} coin (has {has}): only a "
                                "player who can pay may fight",
                                "{name} can't afford the {n} coins (has {has}): only a "
                                "player who can pay may fight", fee, name=name, has=has)
                          if action == "fight" else
                          say_n("{name} can't afford the {n} coin (has {has}): only a "
                                "player who can pay may race",
                                "{name} can't afford the {n} coins (has {has}): only a "
                                "player who can pay may race", fee, name=name, has=has))
        card = current.card
        note = f"{deck.card} {card.number}: {action}"
        move = bank.add_move(db, facts.gid, MoveKind.CONTEST, player=pid, data=data,
                             note=note, source=source, request_id=request_id)
        if fee:
            on_card = isinstance(card, BossCard) and card.to_card
            bank.add_entry(db, facts.gid, move, pid, BANK, fee, EntryKind.CONTEST,
                           f"{deck.card} {card.number}: "
                           f"{'roll cost' if action == 'fight' else 'entry fee'}"
                           f"{' (on the card)' if on_card else ''}", source)
        return bank.move_view(move, facts)


def open_card(bank: Journal, db: sqlite3.Connection, facts: Facts, found: Contests,
              player: object, card: object, rematch: object, source: str,
              request_id: str | None) -> Any:
    deck = found.deck
    final = False
    if rematch is not None:
        if not found.rematch_due:
            raise Refused(say("a rematch is the final Race's prize, once it is over"))
        if not isinstance(rematch, int) or isinstance(rematch, bool) or \
                found.holder(rematch) is None:
            held = sorted(c.number for cards in found.won.values() for c in cards)
            raise Refused(say("rematch must be a {card} card a player holds: {held}",
                              card=Said(deck.card), held=joined(held)))
        number = rematch
    else:
        current = found.current
        if current is not None:
            raise Refused(say("{card} {number} is still open: close it first",
                              card=Said(deck.card), number=current.card.number))
        number_or_none = found.next_number
        if number_or_none is None:
            raise Refused(say("every {card} card has been played", card=Said(deck.card)))
        number = number_or_none
        final = found.drawn + 1 == len(found.cards)
    known = kept.known_card(db, facts.rules.id, number)
    values = card if card is not None else known
    if final and isinstance(card, dict) and "prizes" not in card and known is not None:
        values = {**card, "prizes": known.get("prizes", [])}  # not asked: kept as typed before
    if not isinstance(values, dict):
        keys = "cost, required, pay_to, bonus, points" if deck.kind is ContestKind.BOSS \
            else "fee, prizes, points"
        raise Refused(say("card: type the numbers printed on {card} {number} ({keys})",
                          card=Said(deck.card), number=number, keys=keys))
    if card is not None:  # typed by the table now: only the card's printed numbers
        extra = sorted(str(key) for key in set(values) - CARD_FIELDS[deck.kind])
        if extra:
            raise Refused(say("unknown field(s): {fields}",
                              fields=joined([f"card.{key}"[:40] for key in extra[:5]])))
    if rematch is not None and deck.kind is ContestKind.RACE and not values.get("prizes"):
        # The final Race's own card, flipped without its prizes: its rematch pays them.
        raise Refused(say("card: type the prizes printed on {card} {number}: its rematch pays "
                          "them (fee, prizes, points)", card=Said(deck.card), number=number))
    typed = BossCard.typed(number, values) if deck.kind is ContestKind.BOSS else \
        PrixCard.typed(number, values, final)
    if card is not None:
        kept.keep_card(db, facts.rules.id, typed)
    flipper = bank.in_game(facts, player) if player is not None else facts.current
    seats = list(facts.active)
    if flipper not in seats:
        flipper = seats[0]
    may = tuple(p for p in seat_order(seats, flipper)
                if p not in facts.jailed)  # "You may not take part ... while In Jail"
    if not may:
        raise Refused(say("everyone is in Jail: nobody can take part"))
    data = {"action": "open", "kind": deck.kind.value, "card": typed.to_json(),
            "number": number, "order": list(may), "final": final or rematch is not None,
            "rematch": rematch is not None, "player": flipper, "asked": player}
    if rematch is not None and found.current is not None:
        # The final Race ends with its rematch, in the same move (one undo takes the
        # rematch back and the final Race stands as it ended).
        data["closes"] = _result(found.current)
    what = "rematch of " if rematch is not None else ""
    move = bank.add_move(db, facts.gid, MoveKind.CONTEST, player=flipper, data=data,
                         note=f"{what}{deck.card} {number}", source=source,
                         request_id=request_id)
    return bank.move_view(move, facts)


def close_card(bank: Journal, db: sqlite3.Connection, facts: Facts, found: Contests,
               data: dict[str, Any], source: str, request_id: str | None) -> Any:
    current = found.current
    assert current is not None
    deck = found.deck
    if isinstance(current, Fight) and not current.over:
        raise Refused(say("the fight with {card} {number} goes on: each player fights or "
                          "passes", card=Said(deck.card), number=current.card.number))
    if isinstance(current, Race) and current.started and not current.over:
        raise Refused(say("the race goes on: every place is rolled for first"))
    if isinstance(current, Race) and not current.started and current.entrants:
        raise Refused(say("players have entered: start the race (closing discards a card "
                          "only when nobody enters)"))
    last = current.final  # "The game ends immediately when the final ... is over"
    data.update(last=last, **_result(current))
    record: dict[str, Any] = {}
    if last:
        contests_after = Contests(found.deck, found.cards, None, None, found.drawn,
                                  found.won, True)
        facts.contests = contests_after
        money = bank.money(facts.gid)
        record = ending.record(bank, facts, money, _winners(facts, money))
    move = bank.add_move(db, facts.gid, MoveKind.CONTEST, data={**data, **record},
                         note=f"{deck.card} {current.card.number}: closed" +
                         (" · the final score" if last else ""),
                         source=source, ends=last, request_id=request_id)
    return bank.move_view(move, facts)


def prizes(bank: Journal, db: sqlite3.Connection, facts: Facts, move: int, race: Race,
           source: str) -> None:
    for pid, coins in race.prizes():
        bank.add_entry(db, facts.gid, move, BANK, pid, coins, EntryKind.CONTEST,
                       f"Grand Prix {race.card.number}: place "
                       f"{race.standing.places.index(pid) + 1} prize", source)


def roller(bank: Journal, facts: Facts) -> int | None:
    """Who the block rolls for in the open contest now (None: nobody)."""
    found = facts.contests
    current = found.current if found is not None else None
    if isinstance(current, Fight):
        return current.fighter
    if isinstance(current, Race):
        return current.standing.roller
    return None


def rolled(bank: Journal, db: sqlite3.Connection, facts: Facts, outcome_id: int,
           outcome: Outcome, player: int, source: str) -> None:
    """A Boss fighter's or a racer's roll from the block: the contest moves on; a win
    pays the Boss's bonus (and the coins on the card), a finished race its prizes."""
    found = facts.contests
    assert found is not None and found.current is not None
    current = found.current
    roll = outcome.rolls[-1]
    data = {"action": "roll", "contest": found.current_move, "player": player,
            "roll": roll, "outcome": outcome_id}
    name = f"{found.deck.card} {current.card.number}"
    move = bank.add_move(db, facts.gid, MoveKind.CONTEST, player=player, data=data,
                         note=f"{name}: rolled {roll}", source=source)
    if isinstance(current, Fight):
        after = current.rolled(roll)
        if after.winner is not None:
            card = current.card
            for coins, why in ((card.bonus, "bonus"), (after.pot, "the coins on the card")):
                if coins:
                    bank.add_entry(db, facts.gid, move, BANK, player, coins,
                                   EntryKind.CONTEST, f"{name}: {why}", source,
                                   outcome_id=outcome_id)
    else:
        prizes(bank, db, facts, move, current.rolled(roll), source)


def _result(contest: Fight | Race) -> dict[str, Any]:
    """What a closed contest leaves (read back without replaying it): who kept which card."""
    return {"winner": contest.winner, "number": contest.card.number,
            "points": contest.card.points}


def _winners(facts: Facts, money: Mapping[int, int]) -> list[int]:
    from companion.core.editions.scoring import winners

    return list(winners(facts.rules, facts.seats(money)))


def is_roll(outcome: Outcome) -> bool:
    """A fighter's or a racer's roll (the block's outcome in a contest)."""
    return outcome.kind in (Kind.BOSS_WON, Kind.BOSS_LOST, Kind.RACE_ROLL)



def _contest_text(move: MoveView, facts: Facts) -> str | Said:
    """A step of a Boss fight or a Race in words."""
    data, who = move.data, facts.name(move.player_id)
    card = move.note.split(":")[0].removeprefix("rematch of ")
    paid = sum(e.amount for e in move.entries if e.payer != BANK)
    got = sum(e.amount for e in move.entries if e.payer == BANK)
    action = data.get("action")
    if action == "open":
        return _opened_text(data, who, card)
    if action == "fight":
        return say("{name} fights {card} (pays {coins})", name=who, card=card, coins=paid) \
            if paid else say("{name} fights {card}", name=who, card=card)
    if action == "pass":
        return say("{name} passes on {card}", name=who, card=card)
    if action == "enter":
        return say("{name} enters {card} (pays {coins})", name=who, card=card, coins=paid) \
            if paid else say("{name} enters {card}", name=who, card=card)
    if action == "start":
        return say("{card}: the race starts; prizes {coins}", card=card, coins=got) if got \
            else say("{card}: the race starts", card=card)
    if action == "roll":
        prizes = tuple(say("{name} +{coins}", name=facts.name(e.payee), coins=e.amount)
                       for e in move.entries)
        if prizes:
            return say("{name} rolls {roll} ({card}): {prizes}", name=who,
                       roll=data.get("roll"), card=card, prizes=prizes)
        return say("{name} rolls {roll} ({card})", name=who, roll=data.get("roll"), card=card)
    if action == "close":
        return say("{card} is done", card=card)
    return move.note or say("contest")


def _opened_text(data: Mapping[str, Any], who: str | Said, card: str) -> Said:
    """A contest card flipped: the fight or race opens (its rematch, or the final one)."""
    fight = data.get("kind") == "boss"
    if data.get("rematch"):
        return say("{name} flips the rematch of {card}: the fight opens", name=who, card=card) \
            if fight else say("{name} flips the rematch of {card}: the race opens", name=who,
                              card=card)
    if data.get("final"):
        return say("{name} flips {card}: the fight opens (the final one)", name=who,
                   card=card) if fight else \
            say("{name} flips {card}: the race opens (the final one)", name=who, card=card)
    return say("{name} flips {card}: the fight opens", name=who, card=card) if fight else \
        say("{name} flips {card}: the race opens", name=who, card=card)


def _read_contests(db: sqlite3.Connection, facts: Facts) -> None:
    """Gamer, Mario Kart: the fights or races so far; the final one closed is the end."""
    if facts.rules.contest is None:
        return
    facts.contests = kept.fold(db, facts.gid, facts.rules.contest, len(facts.players))
    if facts.contests.ending is not None:
        facts.ending = db.execute("SELECT * FROM moves WHERE id = ?",
                                  (facts.contests.ending,)).fetchone()


def _contest_touches(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> Touch:
    """Each step of a fight or a race builds on the steps before it. Opening one reads who
    may take part (still in, not in Jail) and who flips (the current player by default);
    fighting or entering, whether the player could pay; a roll, the outcome given."""
    action, pid = data.get("action"), row["player_id"]
    reads: list[Fact] = [CONTEST]
    if action == "open":
        reads += [in_jail(None), out(None), *([TURN] if data.get("asked") is None else [])]
    elif action in ("fight", "enter"):
        reads += [balance(pid), in_jail(pid)]
    elif action == "start":
        reads.append(in_jail(None))
    changes, by_outcome = drawn(row, data)
    return touch(changes=[CONTEST, *changes], reads=[*reads, *by_outcome])


def _contest_flow(facts: Facts, turn: Callable[[], Turn], args: Mapping[str, Any]) -> str | None:
    """Flipping the next card ends a turn that landed on or passed GO; the rest of a fight or
    a race goes by its own order (whose choice it is, whose roll). With a card still open,
    the write says so."""
    found = facts.contests
    if args.get("action") != "open" or args.get("rematch") is not None or \
            (found is not None and found.current is not None):
        return None
    return "flip_card"


def _contest_action(kind: ContestKind) -> Action:
    boss = kind is ContestKind.BOSS
    return Action(
        kind.value, contest, route=f"POST /api/{kind.value}", event="contest", ends=True,
        kind=MoveKind.CONTEST, fixed={"kind": kind.value},
        plays=lambda rules: rules.contest is not None and rules.contest.kind is kind,
        flow=Flow(_contest_flow, names=("flip_card",)),
        fields=(Field("action", {"enum": list(STEPS[kind])}, required=True),
                Field("player", PLAYER, "whose step it is (open: who flips; default the "
                      "current player)"),
                Field("card", {"type": "object", "additionalProperties": {
                    "oneOf": [COUNT, TEXT, {"type": "array", "items": COUNT}]}},
                      "open: the numbers printed on the card (" + ", ".join(
                          sorted(CARD_FIELDS[kind])) + ")"),
                Field("rematch", COUNT, "open: the final Race's rematch of that card")),
        doc=("Gamer: a step of a Boss fight: open (flip the next card), fight or pass, "
             "close." if boss else
             "Mario Kart: a step of a Race: open, enter, start, close; open with a rematch "
             "after the final Race."))


WRITES = (contest,)
ACTIONS = tuple(_contest_action(kind) for kind in ContestKind)
"""The contests' requests: ``/api/boss`` and ``/api/race``."""

MOVES = (Move(MoveKind.CONTEST, _contest_text, read=_read_contests, undone=jail.unassign,
              touches=_contest_touches),)
