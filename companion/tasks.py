"""Waiting for a part's background tasks: every one of them, including those added while it
waits.

``while tasks: await asyncio.gather(*tasks)`` spins forever on Python 3.12 and later (trixie's
3.13) when a task is done but its done-callback, which takes it out of the set, has not run
yet: gathering futures that are all done no longer yields to the event loop, so the callback
never gets its turn. Done tasks are taken out here instead, and the loop is given a turn.
"""

from __future__ import annotations

import asyncio
from typing import Any


async def wait_all(tasks: set[asyncio.Future[Any]]) -> None:
    """Return once every task in ``tasks`` is done (the set may grow meanwhile); exceptions
    stay with the tasks, for their own callbacks to report."""
    while tasks:
        await asyncio.gather(*list(tasks), return_exceptions=True)
        tasks.difference_update([task for task in list(tasks) if task.done()])
        await asyncio.sleep(0)  # the done-callbacks of those tasks run now
