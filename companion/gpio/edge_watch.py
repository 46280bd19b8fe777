"""One thread that waits on every watched line request's file descriptor at once (epoll, no
timeout) and hands each edge event to its pin: no wakeups while the lines are quiet."""

from __future__ import annotations

import contextlib
import logging
import os
import select
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

Reader = Callable[[], None]
"""Reads and delivers the events waiting on one descriptor (called on the watch thread)."""


class EdgeWatch:
    """Watches descriptors; the thread starts with the first one and ends at :meth:`close`."""

    def __init__(self, name: str = "gpiod-edges") -> None:
        self._name = name
        self._readers: dict[int, Reader] = {}
        self._lock = threading.Lock()
        self._epoll: select.epoll | None = None
        self._wake = -1
        self._thread: threading.Thread | None = None

    def watch(self, fd: int, reader: Reader) -> None:
        with self._lock:
            self._start()
            assert self._epoll is not None
            if fd in self._readers:
                self._epoll.modify(fd, select.EPOLLIN)
            else:
                self._epoll.register(fd, select.EPOLLIN)
            self._readers[fd] = reader

    def unwatch(self, fd: int) -> None:
        with self._lock:
            if self._readers.pop(fd, None) is not None and self._epoll is not None:
                with contextlib.suppress(OSError):  # closed by its owner: epoll dropped it
                    self._epoll.unregister(fd)

    @property
    def watching(self) -> int:
        return len(self._readers)

    def close(self) -> None:
        with self._lock:
            thread, self._thread = self._thread, None
            if thread is None:
                return
            os.eventfd_write(self._wake, 1)
        if thread is not threading.current_thread():
            thread.join(timeout=5)
        with self._lock:
            if self._epoll is not None:
                self._epoll.close()
            os.close(self._wake)
            self._epoll, self._wake = None, -1
            self._readers.clear()

    def _start(self) -> None:
        if self._thread is not None:
            return
        self._epoll = select.epoll()
        self._wake = os.eventfd(0, os.EFD_CLOEXEC | os.EFD_NONBLOCK)
        self._epoll.register(self._wake, select.EPOLLIN)
        self._thread = threading.Thread(target=self._run, args=(self._epoll, self._wake),
                                        name=self._name, daemon=True)
        self._thread.start()

    def _run(self, epoll: select.epoll, wake: int) -> None:
        while True:
            try:
                ready = epoll.poll()  # blocks until an edge (or close): no timeout
            except InterruptedError:
                continue
            except (OSError, ValueError):  # closed under us
                return
            for fd, _mask in ready:
                if fd == wake:
                    return
                with self._lock:
                    reader = self._readers.get(fd)
                if reader is None:
                    continue
                try:
                    reader()
                except Exception:  # one pin's failing callback must not end the others
                    log.exception("GPIO edge handler failed")
