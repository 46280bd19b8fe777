"""Property-based: any sequence of valid and invalid bank operations keeps the books exact.

A small independent model predicts which operations are valid and what the balances must be,
who is out and whether the game has ended; after every step the real bank (SQLite file) must
agree, balances must equal the sum of the journal, a refused operation must change nothing, and
undo must restore the exact table from before the move it undoes (a bankruptcy included).

The balances a ``Bank`` keeps in memory (updated as it writes entries) must be the full SQL sum
after every step, for two ``Bank`` objects writing the same file, and after writes that fail
once their entries are written (rolled back: in the file and in memory).
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest.mock import patch

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from companion.bank import Bank
from companion.core.ledger import BANK, MoveRecord, balances, undo_target
from companion.core.outcomes import Kind, Outcome
from companion.exc import CompanionError

FEES = {Kind.BOWSER: 5, Kind.GAME_OVER: 10}

outcomes = st.one_of(
    st.integers(1, 6).map(lambda k: Outcome(Kind.COINS, coins=k)),
    st.sampled_from([Outcome(Kind.BOWSER, 5, (3,)), Outcome(Kind.GAME_OVER, 10, (6,)),
                     Outcome(Kind.POWER_UP)]),
)
amounts = st.one_of(st.integers(1, 10_000), st.integers(-5, 0), st.integers(10_001, 10_010),
                    st.sampled_from([2.5, "7", True, None]))


@dataclass
class Before:
    """The table before a move: what undoing the move must bring back."""

    balances: dict[int, int]
    outcome: int | None
    out: list[int]
    ended: bool
    current: int | None
    paid: list[tuple[object, object, int]]


class BankMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="bank-props-"))
        self.bank = Bank(self.folder / "bank.sqlite3")
        self.bank.new_game("celebration", ["Mario", "Luigi", "Peach"])
        self.other = Bank(self.folder / "bank.sqlite3")  # e.g. a CLI tool on the same file
        self.ids = [p.id for p in self.bank.players()]
        self.model = dict.fromkeys(self.ids, 30)
        self.current: int | None = self.ids[0]
        self.out: list[int] = []
        self.ended = False
        self.paid: list[tuple[object, object, int]] = []  # every payment not undone, in order
        self.stack: list[Before] = []  # what each undoable move changed, newest last
        self.unassigned: dict[int, Outcome] = {}

    def teardown(self) -> None:
        self.bank.close()
        self.other.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    # -- helpers ---------------------------------------------------------------------------

    def party(self, index: int) -> object:
        """0..2: a player, 3: the bank, 4: nobody we know."""
        return [*self.ids, BANK, 9999][index]

    def playing(self, party: object) -> bool:
        """A player still in the game (not the bank, not a stranger, not out)."""
        return party in self.ids and party not in self.out

    def before(self, outcome_id: int | None = None) -> Before:
        return Before(dict(self.model), outcome_id, list(self.out), self.ended, self.current,
                      list(self.paid))

    def snapshot(self) -> tuple[object, ...]:
        b = self.bank
        return (b.journal(), b.balances(), b.summed_balances(), b.current_player(),
                [o.to_json() for o in b.outcomes()])

    def by(self, other: bool) -> Bank:
        """The bank object that writes: this one, or the other on the same file."""
        return self.other if other else self.bank

    def refused(self, call) -> None:  # type: ignore[no-untyped-def]
        before = self.snapshot()
        try:
            call()
        except CompanionError:  # Refused, or GameEnded once it is over
            pass
        else:
            raise AssertionError("an invalid operation was accepted")
        assert self.snapshot() == before

    def move(self, payer: object, payee: object, amount: int) -> None:
        self.paid.append((payer, payee, amount))
        if payer != BANK:
            self.model[payer] -= amount  # type: ignore[index]
        if payee != BANK:
            self.model[payee] += amount  # type: ignore[index]

    def apply_outcome(self, outcome: Outcome, player: int, outcome_id: int) -> None:
        if outcome.kind is Kind.POWER_UP:
            return
        self.stack.append(self.before(outcome_id))
        if outcome.kind is Kind.COINS:
            self.move(BANK, player, outcome.coins)
        else:
            self.move(player, BANK, FEES[outcome.kind])

    # -- rules -----------------------------------------------------------------------------

    @rule(payer=st.integers(0, 4), payee=st.integers(0, 4), amount=amounts,
          other=st.booleans())
    def transfer(self, payer: int, payee: int, amount: object, other: bool) -> None:
        a, b = self.party(payer), self.party(payee)
        valid = (not self.ended and all(p == BANK or self.playing(p) for p in (a, b))
                 and a != b and isinstance(amount, int)
                 and not isinstance(amount, bool) and 1 <= amount <= 10_000)
        if not valid:
            self.refused(lambda: self.bank.transfer(a, b, amount))
            return
        assert isinstance(amount, int)
        self.stack.append(self.before())
        self.by(other).transfer(a, b, amount)
        self.move(a, b, amount)

    @rule(who=st.integers(0, 4))
    def pass_go(self, who: int) -> None:
        player = self.party(who)
        if self.ended or not self.playing(player):
            self.refused(lambda: self.bank.pass_go(player))
            return
        self.stack.append(self.before())
        self.bank.pass_go(player)
        self.move(BANK, player, 2)

    @rule(who=st.integers(0, 4))
    def set_current(self, who: int) -> None:
        player = None if who == 3 else self.party(who)
        if self.ended or (player is not None and not self.playing(player)):
            self.refused(lambda: self.bank.set_current(player))
            return
        if player != self.current:  # a turn change is a move, undone in order
            self.stack.append(self.before())
        self.bank.set_current(player)
        self.current = player  # type: ignore[assignment]

    @rule(outcome=outcomes)
    def press(self, outcome: Outcome) -> None:
        if self.ended:
            self.refused(lambda: self.bank.record_outcome(outcome))
            return
        record = self.bank.record_outcome(outcome)
        assert record.player_id == self.current
        if self.current is None:
            self.unassigned[record.id] = outcome
        else:
            self.apply_outcome(outcome, self.current, record.id)

    @rule(pick=st.integers(0, 5), who=st.integers(0, 4))
    def assign(self, pick: int, who: int) -> None:
        player = self.party(who)
        waiting = sorted(self.unassigned)
        outcome_id = waiting[pick % len(waiting)] if waiting and pick < 5 else 424242
        if outcome_id == 424242 or self.ended or not self.playing(player):
            self.refused(lambda: self.bank.assign_outcome(outcome_id, player))
            return
        self.bank.assign_outcome(outcome_id, player)
        self.apply_outcome(self.unassigned.pop(outcome_id), player, outcome_id)  # type: ignore[arg-type]

    @rule(who=st.integers(0, 4), creditor=st.integers(0, 4))
    def bankrupt(self, who: int, creditor: int) -> None:
        player, to = self.party(who), self.party(creditor)
        if self.ended or not self.playing(player) or player == to or not (
                to == BANK or self.playing(to)):
            self.refused(lambda: self.bank.bankruptcy(player, to))
            return
        self.stack.append(self.before())
        move = self.bank.bankruptcy(player, to)
        left = self.model[player]  # type: ignore[index]
        if left > 0:
            self.move(player, to, left)  # what they had goes to the creditor
        deficit = -left  # below zero: the latest payments they could not afford come back
        for payer, payee, amount in list(reversed(self.paid)):
            if deficit <= 0:
                break
            if payer == player:
                back = min(amount, deficit)
                self.move(BANK if payee == BANK or payee in self.out else payee, player, back)
                deficit -= back
        self.out.append(player)  # type: ignore[arg-type]
        active = [p for p in self.ids if p not in self.out]
        if self.current == player:
            after = self.ids[(self.ids.index(player) + 1) % 3:] + self.ids  # type: ignore[arg-type]
            self.current = next(p for p in after if p not in self.out)
        self.ended = len(active) <= 1
        assert move.ends == self.ended and self.bank.state().ended == self.ended
        if self.ended:
            assert self.bank.state().winners == tuple(active)

    @rule(other=st.booleans())
    def undo(self, other: bool) -> None:
        if not self.stack:
            self.refused(self.by(other).undo)
            return
        before = self.stack.pop()
        records = [MoveRecord(m.id, m.kind, m.undoes, bool(m.entries)) for m in self.bank.moves()]
        expected = undo_target(records)  # the pure rule ...
        undone = self.by(other).undo()
        assert undone.target.id == expected.id  # ... and SQLite agree
        assert self.bank.balances() == before.balances  # exactly as before the move
        self.model = dict(before.balances)
        self.out, self.ended = list(before.out), before.ended
        self.paid = list(before.paid)
        self.current = before.current  # a turn change, or a bankruptcy that moved it on
        assert self.bank.current_player() == self.current
        if before.outcome is not None:  # the block outcome waits for the right player again
            self.unassigned[before.outcome] = next(
                o.outcome for o in self.bank.outcomes() if o.id == before.outcome)

    @rule(payer=st.integers(0, 3), payee=st.integers(0, 3), amount=st.integers(1, 50),
          what=st.sampled_from(["transfer", "pass_go", "undo", "bankruptcy"]))
    def fails_after_its_entries(self, payer: int, payee: int, amount: int, what: str) -> None:
        """A valid write that fails once its entries are written (the disk going away): it is
        rolled back, in the file and in the balances kept in memory."""
        a, b = self.party(payer), self.party(payee)
        calls = {"transfer": lambda: self.bank.transfer(a, b, amount),
                 "pass_go": lambda: self.bank.pass_go(a),
                 "undo": self.bank.undo,
                 "bankruptcy": lambda: self.bank.bankruptcy(a, b)}
        valid = {"transfer": a != b and all(p == BANK or self.playing(p) for p in (a, b)),
                 "pass_go": self.playing(a),
                 "undo": bool(self.stack) and self.undo_moves_coins(),
                 "bankruptcy": self.playing(a) and a != b and (b == BANK or self.playing(b))
                 and self.model[a] > 0}  # type: ignore[index]
        if self.ended or not valid[what]:
            return
        written = self.bank.add_entry

        def then_fail(*args: Any, **kwargs: Any) -> Any:
            written(*args, **kwargs)
            raise OSError("the disk went away")

        before = self.snapshot()
        with patch.object(self.bank, "add_entry", then_fail):
            try:
                calls[what]()
            except OSError:
                pass
            else:
                raise AssertionError("the write did not fail")
        assert self.snapshot() == before

    def undo_moves_coins(self) -> bool:
        """The move undo would take moved coins (so undoing it writes entries)."""
        moves = self.bank.moves()
        return undo_target([MoveRecord(m.id, m.kind, m.undoes, bool(m.entries))
                            for m in moves]).coins

    @precondition(lambda self: len(self.bank.journal()) > 3)
    @rule(pick=st.integers(0, 10_000))
    def assign_an_assigned_outcome(self, pick: int) -> None:
        assigned = [o.id for o in self.bank.outcomes() if o.player_id is not None]
        if assigned:
            oid = assigned[pick % len(assigned)]
            self.refused(lambda: self.bank.assign_outcome(oid, self.ids[0]))

    # -- invariants ------------------------------------------------------------------------

    @invariant()
    def books_agree(self) -> None:
        journal = self.bank.journal()
        assert self.bank.balances() == balances(journal, self.ids) == self.model
        for bank in (self.bank, self.other):  # kept in memory, as the full sum has it
            assert bank.balances() == bank.summed_balances() == self.model
        state = self.bank.state()
        assert [p.id for p in state.players if p.out] == sorted(self.out, key=self.ids.index)
        assert state.ended == self.ended and state.current_player == self.current
        assert all(1 <= e.amount <= 10_000 for e in journal)
        assert {o.id for o in self.bank.outcomes(unassigned_only=True)} == set(self.unassigned)


BankMachine.TestCase.settings = settings(max_examples=40, stateful_step_count=30, deadline=None)
test_bank_operations = BankMachine.TestCase
