"""The one narrow interface between the companion and its frontends (the tablet's web side, the
card readers, the small screen, the demo's console), in the spirit of Mopidy's frontend API.

A frontend gets a :class:`Table` and nothing else: it presses the block, asks for changes with
commands (:mod:`companion.app.commands`), reads typed, frozen views with queries and subscribes
to events (:mod:`companion.events`). It never sees the daemon, the bank or the hardware.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Generic, Protocol, TypeVar

from companion.core.actions import Actions
from companion.events import Event, Listener

R = TypeVar("R")


class Command(Generic[R]):
    """A change the table is asked to make; ``R`` is what it answers. Fields carry the input as
    it came (a frontend does not validate: the table refuses bad input with
    :class:`companion.exc.Refused` and changes nothing)."""

    __slots__ = ()
    action: ClassVar[str] = "change"
    """A few words for the log and for :class:`companion.events.StateChanged`."""


class Query(Generic[R]):
    """Something the table is asked to read; ``R`` is the answer."""

    __slots__ = ()


class Table(Protocol):
    """What every frontend can do with the table."""

    actions: Actions
    """The moves the table takes for its journal, each declared once (its fields, who may
    make it and when): a frontend asks for one with :class:`companion.app.commands.Move`;
    the web makes its routes and the API's description from them."""

    def press(self, source: str = "button", at: float | None = None) -> Event:
        """Press the block now: what happened (an outcome, an ignored press, a timer change)."""
        ...

    async def act(self, command: Command[R], *, source: str = "tablet",
                  request_id: str | None = None) -> R:
        """Carry out ``command``; a ``request_id`` makes a retried request write once."""
        ...

    async def read(self, query: Query[R]) -> R:
        """Answer ``query`` from one consistent snapshot."""
        ...

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` (on the loop) with every event; returns the way to unsubscribe."""
        ...


class Frontend(Protocol):
    """A way for people to use the table, started and stopped by the daemon."""

    name: str
    needed_at_table: bool
    """False for a frontend the table plays on without (Home Assistant): ``/healthz`` says
    when it is down, the status LED does not blink for it."""

    async def start(self, table: Table) -> None:
        """Start serving; a missing part is logged and the frontend carries on without it."""
        ...

    async def stop(self) -> None:
        """Stop serving; must not raise."""
        ...

    @property
    def healthy(self) -> bool:
        """False when the frontend could not do its job (the status LED blinks)."""
        ...

    def status(self) -> str:
        """A few words for ``systemctl status``."""
        ...
