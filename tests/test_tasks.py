"""Waiting for background tasks ends, on every Python: a done task whose done-callback has
not run yet (which spun ``gather`` forever on Python 3.12+, trixie's 3.13), a task added while
waiting, a task that failed. Each case runs in a child process with a deadline, so a spin is a
failure, not a hung suite."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.conftest import ROOT

SCENARIO = textwrap.dedent("""
    import asyncio
    from companion.tasks import wait_all

    async def main():
        loop = asyncio.get_running_loop()
        tasks, finished = set(), []

        def keep(future):
            tasks.add(future)
            future.add_done_callback(lambda f: (tasks.discard(f), finished.append(f)))

        done = loop.create_future()
        keep(done)
        done.set_result("done before the wait")  # its callback is only scheduled
        await wait_all(tasks)  # all done, none called back yet: gather won't yield on 3.12+
        assert not tasks

        async def late():
            await asyncio.sleep(0.05)
            return "added while waiting"

        async def first():
            await asyncio.sleep(0.01)
            keep(asyncio.ensure_future(late()))
            raise ValueError("a failed write")

        keep(asyncio.ensure_future(first()))
        await wait_all(tasks)
        assert not tasks
        results = sorted(repr(f.exception() or f.result()) for f in finished)
        print(len(finished), results)

    asyncio.run(main())
""")


def test_wait_all_ends_with_done_late_and_failed_tasks() -> None:
    done = subprocess.run([sys.executable, "-c", SCENARIO], capture_output=True, text=True,
                          timeout=30, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ("3 [\"'added while waiting'\", \"'done before the wait'\", "
                                   "\"ValueError('a failed write')\"]")
