"""Property-based: any sequence of valid and invalid bank operations keeps the books exact.

A small independent model predicts which operations are valid and what the balances must be;
after every step the real bank (SQLite file) must agree, balances must equal the sum of the
journal, a refused operation must change nothing, and undo must restore the exact balances from
before the operation it undoes.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from companion.bank import Bank
from companion.core.ledger import BANK, balances, undo_target
from companion.core.outcomes import Kind, Outcome
from companion.exc import Refused

FEES = {Kind.BOWSER: 5, Kind.GAME_OVER: 10}

outcomes = st.one_of(
    st.integers(1, 6).map(lambda k: Outcome(Kind.COINS, coins=k)),
    st.sampled_from([Outcome(Kind.BOWSER), Outcome(Kind.GAME_OVER), Outcome(Kind.POWER_UP)]),
)
amounts = st.one_of(st.integers(1, 10_000), st.integers(-5, 0), st.integers(10_001, 10_010),
                    st.sampled_from([2.5, "7", True, None]))


class BankMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="bank-props-"))
        self.bank = Bank(self.folder / "bank.sqlite3")
        self.bank.new_game("celebration", ["Mario", "Luigi", "Peach"])
        self.ids = [p.id for p in self.bank.players()]
        self.model = dict.fromkeys(self.ids, 30)
        self.current: int | None = self.ids[0]
        self.stack: list[tuple[dict[int, int], int | None]] = []  # (balances before, outcome)
        self.unassigned: dict[int, Outcome] = {}

    def teardown(self) -> None:
        self.bank.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    # -- helpers ---------------------------------------------------------------------------

    def party(self, index: int) -> object:
        """0..2: a player, 3: the bank, 4: nobody we know."""
        return [*self.ids, BANK, 9999][index]

    def snapshot(self) -> tuple[object, ...]:
        b = self.bank
        return (b.journal(), b.balances(), b.current_player(),
                [o.to_json() for o in b.outcomes()])

    def refused(self, call) -> None:  # type: ignore[no-untyped-def]
        before = self.snapshot()
        try:
            call()
        except Refused:
            pass
        else:
            raise AssertionError("an invalid operation was accepted")
        assert self.snapshot() == before

    def move(self, payer: object, payee: object, amount: int) -> None:
        if payer != BANK:
            self.model[payer] -= amount  # type: ignore[index]
        if payee != BANK:
            self.model[payee] += amount  # type: ignore[index]

    def apply_outcome(self, outcome: Outcome, player: int, outcome_id: int) -> None:
        if outcome.kind is Kind.POWER_UP:
            return
        self.stack.append((dict(self.model), outcome_id))
        if outcome.kind is Kind.COINS:
            self.move(BANK, player, outcome.coins)
        else:
            self.move(player, BANK, FEES[outcome.kind])

    # -- rules -----------------------------------------------------------------------------

    @rule(payer=st.integers(0, 4), payee=st.integers(0, 4), amount=amounts)
    def transfer(self, payer: int, payee: int, amount: object) -> None:
        a, b = self.party(payer), self.party(payee)
        valid = (9999 not in (a, b) and a != b and isinstance(amount, int)
                 and not isinstance(amount, bool) and 1 <= amount <= 10_000)
        if not valid:
            self.refused(lambda: self.bank.transfer(a, b, amount))
            return
        assert isinstance(amount, int)
        self.stack.append((dict(self.model), None))
        self.bank.transfer(a, b, amount)
        self.move(a, b, amount)

    @rule(who=st.integers(0, 4))
    def pass_go(self, who: int) -> None:
        player = self.party(who)
        if player in (BANK, 9999):
            self.refused(lambda: self.bank.pass_go(player))
            return
        self.stack.append((dict(self.model), None))
        self.bank.pass_go(player)
        self.move(BANK, player, 2)

    @rule(who=st.integers(0, 4))
    def set_current(self, who: int) -> None:
        player = None if who == 3 else self.party(who)
        if player == 9999:
            self.refused(lambda: self.bank.set_current(player))
            return
        self.bank.set_current(player)
        self.current = player  # type: ignore[assignment]

    @rule(outcome=outcomes)
    def press(self, outcome: Outcome) -> None:
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
        if outcome_id == 424242 or player in (BANK, 9999):
            self.refused(lambda: self.bank.assign_outcome(outcome_id, player))
            return
        self.bank.assign_outcome(outcome_id, player)
        self.apply_outcome(self.unassigned.pop(outcome_id), player, outcome_id)  # type: ignore[arg-type]

    @rule()
    def undo(self) -> None:
        if not self.stack:
            self.refused(self.bank.undo)
            return
        before, outcome_id = self.stack.pop()
        expected = undo_target(self.bank.journal())  # the pure rule ...
        assert self.bank.undo().undoes == expected.id  # ... and SQLite agree
        assert self.bank.balances() == before  # exactly as before the undone operation
        self.model = dict(before)
        if outcome_id is not None:  # the block outcome waits for the right player again
            self.unassigned[outcome_id] = next(
                o.outcome for o in self.bank.outcomes() if o.id == outcome_id)

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
        assert all(1 <= e.amount <= 10_000 for e in journal)
        assert {o.id for o in self.bank.outcomes(unassigned_only=True)} == set(self.unassigned)


BankMachine.TestCase.settings = settings(max_examples=40, stateful_step_count=30, deadline=None)
test_bank_operations = BankMachine.TestCase
