"""The bank for the event loop: one writer thread owns the SQLite connection.

Every operation runs on that thread in order, so the loop never blocks on an fsync and two
writers in this process can never interleave. Other processes (``companion export``, a second
tool) share the file through SQLite's own locking.

The service also knows whether the bank can be used now. A bank that can't be opened, or a disk
that refuses a write (full, read-only, failing), is a *problem* in words ("the SD card is
full"); :meth:`BankService.recover` (the table calls it every few seconds while there is one)
re-opens the file, banks the presses held meanwhile (:mod:`companion.bank.held`) and checks
with a small write that the disk takes writes again.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

from companion.bank.bank import CURRENT, Bank
from companion.bank.held import FILE_NAME, HeldFile, HeldPress
from companion.bank.reader import BankReader
from companion.bank.store import (
    LOCKED,
    BankUnavailable,
    StorageError,
    UnsureWrite,
    is_locked,
    make_data_dir,
    open_readonly,
    storage_problem,
)
from companion.core.editions import Editions
from companion.core.state import OutcomeView, StorageView, TableState
from companion.exc import CompanionError, GameEnded, Refused, SavedBeforeFailure
from companion.i18n.said import Said, say

log = logging.getLogger(__name__)
T = TypeVar("T")

KEEP_OPEN = ("SQLITE_FULL", "SQLITE_BUSY", "SQLITE_LOCKED")
"""Storage errors after which the connection is still good (the disk or a lock refused one
write); after any other (read-only, I/O error, can't open) the file is opened again."""


class BankService:
    """Runs ``Bank`` operations on its own thread; ``await service.call(lambda b: ...)``.

    ``prepare`` runs on every (re)opened bank before anything else (the daemon's: start the
    configured game if there is none)."""

    def __init__(self, path: Path, rulesets: Editions | None = None, *,
                 prepare: Callable[[Bank], object] | None = None) -> None:
        self.path = path
        self.rulesets = rulesets
        self.prepare = prepare
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bank")
        self._bank: Bank | None = None
        self._prepared = False
        """``prepare`` has run on the open bank (a fresh card that was full when the game was
        to be started has an open bank and no game yet: it is prepared when it can be)."""
        self._held: list[HeldPress] = []
        self._held_file = HeldFile(path.with_name(FILE_NAME))
        self._held_on_disk = True
        self.problem: str | Said | None = say("the bank has not been opened yet")
        self._reader = BankReader(path, rulesets)

    # -- opening and recovering -------------------------------------------------------------

    def open(self, wait: float | None = None) -> Bank:
        """Open the file on the writer thread (blocking: at start-up only); raises if it
        can't, and then :meth:`recover` keeps trying. A file another program holds locked
        is not waited for past ``wait`` seconds: the open carries on on the writer thread."""
        opening = self._executor.submit(self._recover)
        try:
            opened = opening.result(timeout=wait)
        except TimeoutError:
            if not is_locked(self.path):
                opened = opening.result()  # a slow card: the start waits, as it always did
            else:
                if not opening.done():
                    self.problem = LOCKED
                raise BankUnavailable(LOCKED) from None
        if not opened:
            raise BankUnavailable(self.problem or say("the bank can't be opened"))
        assert self._bank is not None
        return self._bank

    def recover(self) -> asyncio.Future[bool]:
        """Try again now (on the writer thread): True when the bank is open, every held press
        is banked and the disk takes writes."""
        return asyncio.wrap_future(self._executor.submit(self._recover))

    def held_ids(self) -> set[str]:
        """The presses held now (read from the loop)."""
        return {p.press_id for p in list(self._held)}

    def status(self) -> StorageView:
        """How things stand (read from the loop: plain attribute reads)."""
        held = list(self._held)
        return StorageView(self.problem is None, self.problem, len(held),
                           self._held_on_disk and self._held_file.is_open,
                           tuple(p.to_json() for p in held))

    @property
    def is_open(self) -> bool:
        """The bank is open and prepared (its game started)."""
        return self._bank is not None and self._prepared

    def _recover(self) -> bool:
        had = self.problem
        try:
            self._open_held_file()
            if self._bank is None:
                self._bank = Bank(self.path, rulesets=self.rulesets)
                self._prepared = False
            if not self._prepared:
                if self.prepare is not None:
                    self.prepare(self._bank)
                self._prepared = True
            banked = self._bank_held()
            if had is not None and not banked:
                self._bank.probe()  # the disk takes a write again?
        except Exception as exc:
            self._failed(exc, "recovering")
            return False
        self.problem = None
        if had is not None:
            log.info("bank %s: ok again (was: %s)", self.path, had)
        return True

    def _open_held_file(self) -> None:
        if self._held_file.is_open:
            return
        try:  # the first start makes the data folder (the bank would, a moment later)
            make_data_dir(self._held_file.path.parent)
            found = self._held_file.open()
        except OSError as exc:
            if self._held_on_disk:
                log.warning("held presses can't be kept in %s (%s): a press the disk refuses "
                            "is held in memory only until it can", self._held_file.path, exc)
            self._held_on_disk = False
            return
        ids = {p.press_id for p in found}
        before = {p.press_id for p in self._held}
        self._held = [*found, *(p for p in self._held if p.press_id not in ids)]
        restarted = [p for p in found if p.press_id not in before]
        if restarted:
            log.warning("%d held press(es) from before a restart: banking them now",
                        len(restarted))
        self._held_on_disk = True
        self._save_held()

    def _bank_held(self) -> bool:
        """Bank the held presses, oldest first; True if there were any."""
        assert self._bank is not None
        if not self._held:
            return False
        while self._held:
            press = self._held[0]
            try:
                view = self._record(self._bank, press)
            except CompanionError as exc:
                if storage_problem(exc) is not None:
                    raise
                # Cannot happen by the rules (a held press is banked however the game went
                # on); kept in the log whole rather than blocking every press after it.
                log.error("held press %s can't be banked (%s): %s", press.press_id, exc,
                          press.to_json())
                view = None
            self._held.pop(0)
            self._save_held()
            if view is not None:
                log.info("held press %s banked as outcome #%d", press.press_id, view.id)
        return True

    def _record(self, bank: Bank, press: HeldPress, held: bool = True) -> OutcomeView:
        """Bank a press: a live one as the bank stands now (the writes queued before it
        included), a held one for the game and player of its moment."""
        if not held:
            return bank.record_outcome(press.outcome, params=press.params,
                                       source=press.source, press_id=press.press_id)
        known = press.known
        return bank.record_outcome(press.outcome, params=press.params, source=press.source,
                                   at=press.at, game_id=press.game if known else None,
                                   player=press.player if known else CURRENT,
                                   press_id=press.press_id, held=True)

    @staticmethod
    def _as_it_stands(bank: Bank, press: HeldPress) -> HeldPress:
        """A press the disk refused, for the game and player the bank has now (reading works
        when writing does not; the service's view may lag a write queued just before)."""
        try:
            game = bank.latest_game()
            player = bank.current_player(game) if game is not None else None
        except Exception:  # can't read either: the service's view of the press's moment
            return press
        return replace(press, game=game, player=player, known=game is not None)

    def _save_held(self) -> None:
        if not self._held_file.is_open:
            return
        try:
            fits = self._held_file.write(self._held)
        except OSError as exc:
            log.error("held presses can't be written to %s: %s", self._held_file.path, exc)
            fits = False
        if not fits and self._held_on_disk:
            log.warning("held presses: %d no longer fit in %s; the rest are in memory only",
                        len(self._held), self._held_file.path)
        self._held_on_disk = fits

    def _failed(self, exc: BaseException, doing: str) -> str | Said:
        """Note a storage failure (or any failure to open); the words for it."""
        reason = storage_problem(exc) or str(exc) or type(exc).__name__
        if reason != self.problem:
            log.error("bank %s: %s failed: %s", self.path, doing, reason)
        self.problem = reason
        if self._bank is not None and not str(getattr(exc, "sqlite_errorname", "")
                                              ).startswith(KEEP_OPEN):
            try:
                self._bank.close()
            except Exception:  # a broken connection: it goes anyway
                log.debug("closing the failed bank connection", exc_info=True)
            self._bank = None
            self._prepared = False
        return reason

    # -- presses ---------------------------------------------------------------------------

    def bank_press(self, press: HeldPress
                   ) -> asyncio.Future[tuple[OutcomeView | None, TableState | None]]:
        """Bank a press's outcome (in order with every other write) and read the table after
        it; ``(None, None)`` when it is held because the disk refused it or the bank is down
        (it is banked later, once)."""
        return asyncio.wrap_future(self._executor.submit(self._press, press))

    def _press(self, press: HeldPress) -> tuple[OutcomeView | None, TableState | None]:
        if self._bank is not None and self._prepared and not self._held:
            try:
                view = self._record(self._bank, press, held=False)
            except (Refused, GameEnded) as exc:  # the table changed under it: kept, never lost
                log.warning("press %s can't be applied as it stands (%s): kept for the banker",
                            press.press_id, exc)
                view = self._record(self._bank, replace(press, known=True), held=True)
                return view, self._state_after(self._bank)
            except Exception as exc:
                if storage_problem(exc) is None:
                    raise
                press = self._as_it_stands(self._bank, press)
                self._failed(exc, f"banking press {press.press_id}")
            else:
                return view, self._state_after(self._bank)
        self._open_held_file()
        self._held.append(press)
        self._save_held()
        log.warning("press %s held, not saved yet (%d held): %s", press.press_id,
                    len(self._held), self.problem)
        return None, None

    def give_back(self, presses: Sequence[HeldPress]) -> asyncio.Future[dict[str, str]]:
        """Presses a page kept (its copy of what was held here): each is ``banked`` (now, or
        it already was: a press is banked once), ``held`` here (the disk still refuses), or
        ``refused`` (it can't be banked in this bank; the page keeps it for the banker)."""
        return asyncio.wrap_future(self._executor.submit(self._give_back, presses))

    def _give_back(self, presses: Sequence[HeldPress]) -> dict[str, str]:
        answer: dict[str, str] = {}
        for press in presses:
            if press.press_id in answer:
                continue
            if any(p.press_id == press.press_id for p in self._held):
                answer[press.press_id] = "held"
                continue
            if self._banked_already(press.press_id):
                answer[press.press_id] = "banked"
                continue
            if self._bank is not None and self._prepared:
                try:
                    if self._held:  # the presses held before it go first
                        self._bank_held()
                    self._record(self._bank, self._in_this_bank(self._bank, press))
                except CompanionError as exc:
                    if storage_problem(exc) is None:
                        log.warning("a press given back can't be banked (%s): %s", exc,
                                    press.to_json())
                        answer[press.press_id] = "refused"
                        continue
                    self._failed(exc, f"banking press {press.press_id} given back")
                except Exception as exc:
                    if storage_problem(exc) is None:
                        raise
                    self._failed(exc, f"banking press {press.press_id} given back")
                else:
                    log.info("press %s given back by a page: banked", press.press_id)
                    answer[press.press_id] = "banked"
                    continue
            self._open_held_file()
            self._held.append(press)
            self._save_held()
            log.warning("press %s given back by a page: held (%d held): %s", press.press_id,
                        len(self._held), self.problem)
            answer[press.press_id] = "held"
        return answer

    def _banked_already(self, press_id: str) -> bool:
        """Whether the bank has this press (read even when it takes no writes)."""
        sql, args = "SELECT 1 FROM outcomes WHERE press_id = ?", (press_id,)
        try:
            row = self._bank.db.execute(sql, args).fetchone() if self._bank is not None \
                else self._read_one(sql, args)
        except Exception:  # can't be read: it is held until it can
            return False
        return row is not None

    def _read_one(self, sql: str, args: tuple[object, ...]) -> sqlite3.Row | None:
        """One row read on a read-only connection of its own (the writer's may be gone)."""
        db = open_readonly(self.path)
        try:
            return db.execute(sql, args).fetchone()  # type: ignore[no-any-return]
        finally:
            db.close()

    @staticmethod
    def _in_this_bank(bank: Bank, press: HeldPress) -> HeldPress:
        """A press from a game this bank does not have (a new card, a bank restored from
        before it): kept unassigned in the latest game, for the banker to give."""
        if not press.known or press.game is None or bank.db.execute(
                "SELECT 1 FROM games WHERE id = ?", (press.game,)).fetchone() is not None:
            return press
        log.warning("press %s was for game %d, which this bank does not have: kept "
                    "unassigned in the latest game", press.press_id, press.game)
        return replace(press, game=bank.latest_game(), player=None, params={})

    # -- every other operation -------------------------------------------------------------

    def _state_after(self, bank: Bank) -> TableState | None:
        """The table after a write that is done: None when it can't be read now (the write
        stands; the next read or recovery shows it)."""
        try:
            return bank.state()
        except Exception as exc:
            if storage_problem(exc) is None:
                raise
            log.warning("the state after a write can't be read now: %s", exc)
            return None

    def run(self, fn: Callable[[Bank], T]) -> T:
        """Run ``fn`` on the writer thread and wait (for start-up and tools, not the loop)."""
        return self._executor.submit(self._with_bank, fn).result()

    def call(self, fn: Callable[[Bank], T], *, write: bool = False) -> asyncio.Future[T]:
        """Queue ``fn(bank)`` on the writer thread now (order is kept); await the result.
        A storage failure comes back as :class:`StorageError` saying why. A ``write`` waits
        for the presses held before it: they are banked first, or it is refused."""
        return asyncio.wrap_future(self._executor.submit(self._with_bank, fn, write))

    async def read(self, fn: Callable[[Bank], T]) -> T:
        """``fn(bank)`` on the reading thread (:mod:`companion.bank.reader`): a snapshot of
        what is committed, never queued behind writes nor holding them up. While the bank is
        down, or when the reading connection fails, it runs on the writer thread as
        :meth:`call` would (which says why)."""
        if self.is_open:
            try:
                return await self._reader.call(fn)
            except BankUnavailable as exc:
                log.warning("bank %s: read on the writer thread (the read connection: %s)",
                            self.path, exc)
        return await self.call(fn)

    def write(self, fn: Callable[[Bank], T], *, request_id: str | None = None
              ) -> asyncio.Future[tuple[T, TableState | None]]:
        """A write and the table after it (None: the write stands, the state can't be read
        now); held presses are banked before it, in order. ``request_id`` (its
        Idempotency-Key) lets a write the disk failed on mid-commit be looked up: the answer
        is then what the journal holds, not a guess."""
        def both(bank: Bank) -> tuple[T, TableState | None]:
            result = fn(bank)
            return result, self._state_after(bank)

        return asyncio.wrap_future(self._executor.submit(self._with_bank, both, True,
                                                         request_id))

    def _with_bank(self, fn: Callable[[Bank], T], write: bool = False,
                   request_id: str | None = None) -> T:
        if self._bank is None or (write and not self._prepared):
            raise StorageError(self.problem or say("the bank is not open"))
        if write and self._held:  # the presses held before this write go first
            try:
                self._bank_held()
            except Exception as exc:
                raise StorageError(self._failed(exc, "banking held presses")) from exc
        try:
            return fn(self._bank)
        except UnsureWrite as exc:
            return self._unsure(fn, exc, request_id)
        except StorageError as exc:
            self._failed(exc, "a bank operation")
            raise
        except Exception as exc:
            if storage_problem(exc) is None:
                raise
            raise StorageError(self._failed(exc, "a bank operation")) from exc

    def _unsure(self, fn: Callable[[Bank], T], exc: UnsureWrite, request_id: str | None) -> T:
        """The disk failed while ``fn``'s write was committed: answer what the journal says.

        Found there: it stands (answered as a replay once the bank takes writes again, else
        :class:`SavedBeforeFailure`). Not there: not saved. The journal can't be read, or the
        write had no key to look up: not known, and said so (a keyed retry is safe)."""
        why = self._failed(exc, "committing a write")
        if request_id is None:
            raise UnsureWrite(say("it may or may not have been saved ({why}): look at the "
                                  "history before doing it again", why=why)) from exc
        move = self._look_up(request_id)
        if move is None:
            raise UnsureWrite(say("it may or may not have been saved ({why}): send it again "
                                  "with the same Idempotency-Key once the bank is back (it is "
                                  "written once)", why=why)) from exc
        if not move:
            log.warning("request %s: not in the journal after the failed commit", request_id)
            raise StorageError(say("not saved: {why}", why=why)) from exc
        log.warning("request %s: in the journal (move %d) despite the failed commit",
                    request_id, move)
        if self._recover():  # the bank takes writes: the same request answers as it did
            assert self._bank is not None
            return fn(self._bank)
        raise SavedBeforeFailure(say("saved just before the disk failed ({why}); the bank "
                                     "takes no more writes until it is fixed", why=why),
                                 move) from exc

    def _look_up(self, request_id: str) -> int | None:
        """The move written with this request id (0: none), read on a connection of its own;
        None when the journal can't be read."""
        try:
            row = self._read_one("SELECT id FROM moves WHERE request_id = ?", (request_id,))
        except Exception as exc:
            log.warning("the journal can't be read to look up request %s: %s", request_id, exc)
            return None
        return 0 if row is None else int(row[0])

    def close(self) -> None:
        """Finish every queued write, bank what is held if the disk now allows, then close
        the file (on the writer thread, in order)."""
        self._reader.close()
        self._executor.submit(self._close_bank).result()
        self._executor.shutdown(wait=True)

    def _close_bank(self) -> None:
        if self._held:
            self._recover()
            if self._held:
                log.error("stopping with %d press(es) not banked: %s", len(self._held),
                          "kept in " + str(self._held_file.path) + " for the next start"
                          if self._held_on_disk else "LOST (the disk took none of them)")
        self._held_file.close()
        if self._bank is not None:
            self._bank.close()
            self._bank = None
