"""The log rate limit: a flood of asyncio/aiohttp records becomes a few lines and a count."""

from __future__ import annotations

import asyncio
import io
import logging
import subprocess
import sys

from companion.logs import PER_WINDOW, RateLimit
from tests.conftest import ROOT


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def handler_with(limit: RateLimit) -> tuple[logging.Handler, io.StringIO]:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    handler.addFilter(limit)
    return handler, out


def test_a_flood_is_a_few_lines_then_one_count() -> None:
    clock = Clock()
    limit = RateLimit(clock=clock)
    handler, out = handler_with(limit)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        noisy = logging.getLogger("aiohttp.server")  # a child of a limited logger
        for i in range(1000):
            noisy.error("Error handling request from %s", f"10.0.0.{i % 250}")
        lines = out.getvalue().splitlines()
        assert len(lines) == PER_WINDOW + 1
        assert lines[-1].startswith("companion.logs: suppressing more messages like this from "
                                    "aiohttp.server")
        clock.now += 10
        noisy.error("Error handling request from %s", "10.0.0.9")
        lines = out.getvalue().splitlines()[PER_WINDOW + 1:]
        assert lines == ["companion.logs: suppressed 995 similar messages from aiohttp.server "
                         "in 10 s: Error handling request from %s",
                         "aiohttp.server: Error handling request from 10.0.0.9"]
        assert limit.dropped_total == 995
    finally:
        root.removeHandler(handler)


def test_kinds_are_counted_apart_and_other_loggers_are_left_alone() -> None:
    limit = RateLimit(clock=Clock())
    handler, out = handler_with(limit)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        for _ in range(20):
            logging.getLogger("asyncio").error("socket.accept() out of system resource\n"
                                               "socket: <fd=7>")
            logging.getLogger("asyncio").error("Task exception was never retrieved")
            logging.getLogger("companion.bank").warning("a bank warning")
            logging.getLogger("asyncioish").warning("not asyncio's")
        text = out.getvalue()
        assert text.count("asyncio: socket.accept() out of system resource") == PER_WINDOW
        assert text.count("asyncio: Task exception was never retrieved") == PER_WINDOW
        assert text.count("companion.bank: a bank warning") == 20
        assert text.count("asyncioish: not asyncio's") == 20
    finally:
        root.removeHandler(handler)


def test_the_command_line_limits_asyncio_on_a_real_loop(tmp_path: object) -> None:
    """``companion``'s own logging set-up, and 2000 real asyncio exception-handler records
    (what a descriptor flood made asyncio write): a handful of lines."""
    script = (
        "import asyncio, logging\n"
        "from companion import cli\n"
        "cli._setup_logging(False, False)\n"
        "async def main():\n"
        "    loop = asyncio.get_running_loop()\n"
        "    for _ in range(2000):\n"
        "        loop.call_exception_handler({'message': 'socket.accept() out of system "
        "resource', 'exception': OSError(24, 'Too many open files')})\n"
        "asyncio.run(main())\n"
        "logging.getLogger('companion.x').info('still here')\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) < 40, done.stderr[-2000:]  # each let-through record has a traceback
    assert sum("socket.accept() out of system resource" in line for line in lines) == \
        PER_WINDOW + 1  # five records, then "suppressing more messages like this"
    assert lines[-1].endswith("companion.x: still here")


def test_the_limit_is_safe_from_threads() -> None:
    limit = RateLimit(clock=Clock())
    handler, out = handler_with(limit)
    logger = logging.getLogger("asyncio.threads-test")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        async def many() -> None:
            await asyncio.gather(*(asyncio.to_thread(logger.error, "same") for _ in range(200)))

        asyncio.run(many())
        assert out.getvalue().count("asyncio.threads-test: same") == PER_WINDOW
        assert limit.dropped_total == 200 - PER_WINDOW
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
