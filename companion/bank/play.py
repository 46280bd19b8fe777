"""The bank's writes for Gamer and Mario Kart: the characters picked, the Power-up and Super
Star abilities, and the Boss fights and Races (their cards' numbers typed once, kept).

A mixin of :class:`~companion.bank.bank.Bank`: each write is one move in the journal, inside
the bank's transaction, undone whole like any other.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from companion.bank import contests as kept
from companion.bank.contests import Contests
from companion.bank.facts import Facts
from companion.core.editions.contests import (
    BossCard,
    ContestKind,
    Fight,
    PrixCard,
    Race,
    seat_order,
)
from companion.core.editions.powers import (
    Effect,
    Powers,
    Use,
    check_targets,
    moves,
    typed_coins,
)
from companion.core.ledger import BANK, EntryKind, MoveKind, and_joined, check_source, check_space
from companion.core.outcomes import Kind, Outcome
from companion.exc import Refused, shown
from companion.i18n.said import Said, joined, say, say_n

if TYPE_CHECKING:
    from collections.abc import Sequence
    from contextlib import AbstractContextManager

    from companion.core.ledger import Entry, Party
    from companion.core.state import MoveView

ACTIONS = {ContestKind.BOSS: ("open", "fight", "pass", "close"),
           ContestKind.RACE: ("open", "enter", "start", "close")}
"""What ``POST /api/boss`` and ``POST /api/race`` take (the rolls come from the block)."""


class GamerPlay:
    """Characters, abilities and contests (mixed into the bank)."""

    if TYPE_CHECKING:  # the bank's own, which these writes use
        def _write(self) -> AbstractContextManager[sqlite3.Connection]: ...
        def _open_facts(self, game_id: int | None) -> Facts: ...
        def _in_game(self, facts: Facts, player: object, what: str = "player") -> int: ...
        def _balances(self, gid: int) -> dict[int, int]: ...
        def _board(self, gid: int) -> dict[str, int]: ...
        def _replay(self, request_id: object, kind: MoveKind, game_id: int | None,
                    **same: object) -> sqlite3.Row | None: ...
        def _move_view(self, move_id: int, facts: Facts | None = None) -> MoveView: ...
        def _ending(self, facts: Facts, money: Mapping[int, int],
                    winning: Sequence[int]) -> dict[str, Any]: ...
        def _insert_move(self, db: sqlite3.Connection, gid: int, kind: MoveKind, *,
                         player: int | None = None, data: Mapping[str, Any] | None = None,
                         note: str = "", source: str = "", ends: bool = False,
                         undoes: int | None = None, request_id: str | None = None) -> int: ...
        def _insert_entry(self, db: sqlite3.Connection, gid: int, move: int, payer: Party,
                          payee: Party, amount: int, kind: EntryKind, note: str = "",
                          source: str = "", outcome_id: int | None = None,
                          undoes: int | None = None, space: str | None = None) -> Entry: ...

    # -- characters ------------------------------------------------------------------------

    def set_characters(self, player: object, characters: object,
                       game_id: int | None = None) -> tuple[str, ...]:
        """The character tokens ``player`` plays (two players: two each); each token once at
        the table."""
        with self._write() as db:
            facts = self._open_facts(game_id)
            powers = _powers(facts)
            pid = self._in_game(facts, player)
            want = powers.picks(len(facts.players))
            if not isinstance(characters, list) or len(characters) != want:
                raise Refused(say_n("characters must list {n} character for each player in "
                                    "a game of {players}",
                                    "characters must list {n} characters for each player in "
                                    "a game of {players}", want, players=len(facts.players)))
            picked = tuple(powers.character(c).id for c in characters)
            if len(set(picked)) != len(picked):
                raise Refused(say("characters lists one character twice"))
            for other in facts.players:
                taken = set(other.characters) & set(picked)
                if other.id != pid and taken:
                    name = powers.character(sorted(taken)[0]).name
                    raise Refused(say("{character} is {name}'s: each character token is "
                                      "played by one player", character=Said(name),
                                      name=other.name))
            db.execute("UPDATE players SET characters = ? WHERE id = ?",
                       (json.dumps(list(picked)), pid))
            return picked

    # -- abilities ---------------------------------------------------------------------------

    def use_ability(self, player: object, ability: object, *, targets: object = None,
                    spaces: object = None, coins: object = None, character: object = None,
                    spaces_instead: object = False, source: str = "",
                    request_id: str | None = None, game_id: int | None = None) -> Any:
        """``player`` uses a Power-up die face (or ``super_star``) as their character does:
        the drops, steals, collects and scoops it makes, one move. ``spaces``: where each
        player who drops stands ({id: space}; a player in Jail drops on Just Visiting)."""
        source = check_source(source)
        with self._write() as db:
            replay = self._replay(request_id, MoveKind.ABILITY, game_id, player=player,
                                  ability=ability)
            if replay is not None:
                return self._move_view(replay["id"])
            facts = self._open_facts(game_id)
            powers = _powers(facts)
            pid = self._in_game(facts, player)
            who = next(p for p in facts.players if p.id == pid)
            used = _character(powers, who.characters, character)
            base = powers.ability(ability, used)
            how = base.for_character(used)
            others = [p for p in facts.active if p != pid]
            hit = check_targets(how, pid, targets, others)
            typed = typed_coins(how, coins)
            if not isinstance(spaces_instead, bool) or (spaces_instead and
                                                        not how.spaces_instead):
                raise Refused(say("spaces_instead is only for an ability that offers spaces "
                                  "instead of coins"))
            board = facts.rules.board
            assert board is not None
            droppers = hit if how.effect in (Effect.DROP, Effect.DROP_GIVE) else \
                (pid,) if how.effect is Effect.DROP_UP_TO and typed else ()
            where = self._drop_spaces(facts, droppers, spaces, board.jail_space)
            use = Use(pid, how, hit, where, typed, spaces_instead)
            made = moves(use, self._balances(facts.gid), self._board(facts.gid))
            boosted = how is not base
            data = {"player": player, "ability": ability, "id": base.id, "name": base.name,
                    "character": used, "boost": boosted, "targets": list(hit),
                    "spaces": {str(k): v for k, v in where.items()}, "coins": typed,
                    "spaces_instead": spaces_instead, "text": how.text}
            move = self._insert_move(db, facts.gid, MoveKind.ABILITY, player=pid, data=data,
                                     note=how.name if not boosted else f"{how.name} (boost)",
                                     source=source, request_id=request_id)
            for m in made:
                if m.kind == "drop":
                    self._insert_entry(db, facts.gid, move, m.player, BANK, m.coins,
                                       EntryKind.DROP, f"{base.name}: dropped on {m.space}",
                                       source, space=m.space)
                elif m.kind == "scoop":
                    self._insert_entry(db, facts.gid, move, BANK, m.player, m.coins,
                                       EntryKind.SCOOP, f"{base.name}: from {m.space}",
                                       source, space=m.space)
                elif m.kind == "steal":
                    self._insert_entry(db, facts.gid, move, m.player, m.to, m.coins,
                                       EntryKind.ABILITY, base.name, source)
                else:
                    self._insert_entry(db, facts.gid, move, BANK, m.player, m.coins,
                                       EntryKind.ABILITY, base.name, source)
            return self._move_view(move, facts)

    def _drop_spaces(self, facts: Facts, droppers: tuple[int, ...], spaces: object,
                     jail_space: str) -> dict[int, str]:
        """Where each dropping player stands: named in ``spaces``, or Just Visiting for a
        player in Jail ("drop them on the Just Visiting space")."""
        if spaces is None:
            spaces = {}
        if not isinstance(spaces, dict):
            raise Refused(say("spaces must map each player who drops to the space they stand "
                              "on"))
        board = facts.rules.board
        assert board is not None
        known = (*board.spaces, *self._board(facts.gid))
        where: dict[int, str] = {}
        for pid in droppers:
            typed = spaces.get(str(pid), spaces.get(pid))  # type: ignore[call-overload]
            if pid in facts.jailed:
                if typed is not None and check_space(typed, known) != jail_space:
                    raise Refused(say("{name} is in Jail: they drop on {space}",
                                      name=facts.name(pid), space=jail_space))
                where[pid] = jail_space
            elif typed is None:
                raise Refused(say("spaces: where does {name} stand? (they drop their coins "
                                  "there)", name=facts.name(pid)))
            else:
                where[pid] = check_space(typed, known)
        return where

    # -- contests ------------------------------------------------------------------------------

    def contest(self, kind: object, action: object, *, player: object = None,
                card: object = None, rematch: object = None, source: str = "",
                request_id: str | None = None, game_id: int | None = None) -> Any:
        """A step of a Boss fight (``open``, ``fight``, ``pass``, ``close``) or a Race
        (``open``, ``enter``, ``start``, ``close``); the rolls come from the block."""
        source = check_source(source)
        with self._write() as db:
            replay = self._replay(request_id, MoveKind.CONTEST, game_id, action=action,
                                  asked=player)
            if replay is not None:
                return self._move_view(replay["id"])
            facts = self._open_facts(game_id)
            deck = facts.rules.contest
            if deck is None or deck.kind.value != kind:
                name = Said(facts.rules.name)
                raise Refused(say("{edition} has no Boss fights", edition=name) if kind == "boss"
                              else say("{edition} has no Races", edition=name))
            if action not in ACTIONS[deck.kind]:
                raise Refused(say("action must be one of {actions}, got {value}",
                                  actions=joined(ACTIONS[deck.kind]), value=shown(action)))
            found = facts.contests
            assert found is not None
            if action == "open":
                return self._open_contest(db, facts, found, player, card, rematch, source,
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
                return self._close_contest(db, facts, found, data, source, request_id)
            if action == "start":
                assert isinstance(current, Race)
                jailed = [facts.name(p) for p in current.entrants if p in facts.jailed]
                if jailed:
                    raise Refused(say("{names} went to Jail after entering: a player in Jail "
                                      "may not take part in Races", names=and_joined(jailed)))
                after = current.start()
                move = self._insert_move(db, facts.gid, MoveKind.CONTEST, data=data,
                                         note=f"{deck.card} {current.card.number}: the race "
                                              "starts", source=source, request_id=request_id)
                self._prizes(db, facts, move, after, source)
                return self._move_view(move, facts)
            pid = self._in_game(facts, player)
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
            money = self._balances(facts.gid)
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
            move = self._insert_move(db, facts.gid, MoveKind.CONTEST, player=pid, data=data,
                                     note=note, source=source, request_id=request_id)
            if fee:
                on_card = isinstance(card, BossCard) and card.to_card
                self._insert_entry(db, facts.gid, move, pid, BANK, fee, EntryKind.CONTEST,
                                   f"{deck.card} {card.number}: "
                                   f"{'roll cost' if action == 'fight' else 'entry fee'}"
                                   f"{' (on the card)' if on_card else ''}", source)
            return self._move_view(move, facts)

    def _open_contest(self, db: sqlite3.Connection, facts: Facts, found: Contests,
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
        values = card if card is not None else kept.known_card(db, facts.rules.id, number)
        if not isinstance(values, dict):
            keys = "cost, required, pay_to, bonus, points" if deck.kind is ContestKind.BOSS \
                else "fee, prizes, points"
            raise Refused(say("card: type the numbers printed on {card} {number} ({keys})",
                              card=Said(deck.card), number=number, keys=keys))
        typed = (BossCard if deck.kind is ContestKind.BOSS else PrixCard).typed(number, values)
        if card is not None:
            kept.keep_card(db, facts.rules.id, typed)
        flipper = self._in_game(facts, player) if player is not None else facts.current
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
        move = self._insert_move(db, facts.gid, MoveKind.CONTEST, player=flipper, data=data,
                                 note=f"{what}{deck.card} {number}", source=source,
                                 request_id=request_id)
        return self._move_view(move, facts)

    def _close_contest(self, db: sqlite3.Connection, facts: Facts, found: Contests,
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
        ending: dict[str, Any] = {}
        if last:
            contests_after = Contests(found.deck, found.cards, None, None, found.drawn,
                                      found.won, True)
            facts.contests = contests_after
            money = self._balances(facts.gid)
            ending = self._ending(facts, money, _winners(facts, money))
        move = self._insert_move(db, facts.gid, MoveKind.CONTEST, data={**data, **ending},
                                 note=f"{deck.card} {current.card.number}: closed" +
                                 (" · the final score" if last else ""),
                                 source=source, ends=last, request_id=request_id)
        return self._move_view(move, facts)

    def _prizes(self, db: sqlite3.Connection, facts: Facts, move: int, race: Race,
                source: str) -> None:
        for pid, coins in race.prizes():
            self._insert_entry(db, facts.gid, move, BANK, pid, coins, EntryKind.CONTEST,
                               f"Grand Prix {race.card.number}: place "
                               f"{race.standing.places.index(pid) + 1} prize", source)

    def contest_roller(self, facts: Facts) -> int | None:
        """Who the block rolls for in the open contest now (None: nobody)."""
        found = facts.contests
        current = found.current if found is not None else None
        if isinstance(current, Fight):
            return current.fighter
        if isinstance(current, Race):
            return current.standing.roller
        return None

    def _contest_roll(self, db: sqlite3.Connection, facts: Facts, outcome_id: int,
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
        move = self._insert_move(db, facts.gid, MoveKind.CONTEST, player=player, data=data,
                                 note=f"{name}: rolled {roll}", source=source)
        if isinstance(current, Fight):
            after = current.rolled(roll)
            if after.winner is not None:
                card = current.card
                for coins, why in ((card.bonus, "bonus"), (after.pot, "the coins on the card")):
                    if coins:
                        self._insert_entry(db, facts.gid, move, BANK, player, coins,
                                           EntryKind.CONTEST, f"{name}: {why}", source,
                                           outcome_id=outcome_id)
        else:
            self._prizes(db, facts, move, current.rolled(roll), source)


def _result(contest: Fight | Race) -> dict[str, Any]:
    """What a closed contest leaves (read back without replaying it): who kept which card."""
    return {"winner": contest.winner, "number": contest.card.number,
            "points": contest.card.points}


def _powers(facts: Facts) -> Powers:
    if facts.rules.powers is None:
        raise Refused(say("{edition} has no characters or abilities",
                          edition=Said(facts.rules.name)))
    return facts.rules.powers


def _character(powers: Powers, mine: tuple[str, ...], character: object) -> str | None:
    """The character taking this turn: named, or the player's only one."""
    if character is None:
        if len(mine) > 1:
            raise Refused(say("character: which of their characters is taking this turn?"))
        return mine[0] if mine else None
    picked = powers.character(character).id
    if picked not in mine:
        raise Refused(say("{character} is not one of this player's characters",
                          character=Said(powers.character(picked).name)))
    return picked


def _winners(facts: Facts, money: Mapping[int, int]) -> list[int]:
    from companion.core.editions.scoring import winners

    return list(winners(facts.rules, facts.seats(money)))


def contest_outcome(outcome: Outcome) -> bool:
    return outcome.kind in (Kind.BOSS_WON, Kind.BOSS_LOST, Kind.RACE_ROLL)

