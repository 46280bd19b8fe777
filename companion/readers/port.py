"""The reader's serial port, in its own thread: open, decode, hand taps over, survive unplugs.

A USB reader that is unplugged or renumbered makes reads fail: the thread logs it once, closes
the port and tries the configured path again every half second, so it is back within a second
of the path reappearing (a udev symlink such as ``/dev/companion-reader`` follows the device).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import serial

from companion.core.taps import TapDetector
from companion.core.uid import fingerprint
from companion.readers import DEFAULT_BAUD, PROTOCOLS
from companion.readers.counters import Rejects
from companion.readers.lines import LinesDecoder
from companion.readers.rdm6300 import Rdm6300Decoder

log = logging.getLogger(__name__)

RETRY = 0.5
POLL_GAP = 0.08
"""Seconds between PN532 polls."""
EMPTY_POLLS = 2
"""PN532 polls in a row that must find no card before the field counts as empty (one poll can
miss a card that is there)."""


@dataclass
class ReaderStatus:
    """What the reader thread has seen, for ``companion reader`` and the activity API."""

    port: str
    protocol: str
    connected: bool = False
    detail: str = "not opened yet"
    connects: int = 0
    disconnects: int = 0
    frames: int = 0
    taps: int = 0
    rejects: Rejects = field(default_factory=Rejects)

    def to_json(self) -> dict[str, Any]:
        return {"port": self.port, "protocol": self.protocol, "connected": self.connected,
                "detail": self.detail, "connects": self.connects,
                "disconnects": self.disconnects, "frames": self.frames, "taps": self.taps,
                "ignored": dict(self.rejects), "ignored_total": self.rejects.total()}


class SerialReader:
    """Reads one reader on one port; ``on_tap(uid, at)`` runs on this reader's thread."""

    def __init__(self, port: str, protocol: str, *, on_tap: Callable[[str, float], None],
                 baudrate: int = 0, tap_gap: float = 1.0,
                 clock: Callable[[], float] = time.monotonic,
                 on_status: Callable[[ReaderStatus], None] | None = None) -> None:
        if protocol not in PROTOCOLS:
            raise ValueError(f"unknown reader protocol {protocol!r}")
        self.port = port
        self.protocol = protocol
        self.baudrate = baudrate or DEFAULT_BAUD[protocol]
        self.on_tap = on_tap
        self.on_status = on_status
        self.clock = clock
        self.taps = TapDetector(tap_gap)
        self.status = ReaderStatus(port, protocol)
        self._stop = threading.Event()
        self._serial: serial.Serial | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=f"reader {self.port}",
                                        daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    # -- the thread ------------------------------------------------------------------------

    def _run(self) -> None:
        waiting_logged = False
        while not self._stop.is_set():
            try:
                # exclusive: a second program on the same port would steal bytes (and, for a
                # PN532, talk to the chip at the same time)
                self._serial = serial.Serial(self.port, self.baudrate, timeout=0.05,
                                             exclusive=True)
            except (serial.SerialException, OSError, ValueError) as exc:
                if not waiting_logged:  # an optional part: waited for, not an error
                    log.info("reader %s (%s) not available: %s; waiting for it",
                             self.port, self.protocol, _short(exc))
                    self._set(False, f"waiting: {_short(exc)}")
                    waiting_logged = True
                self._stop.wait(RETRY)
                continue
            waiting_logged = False
            self.status.connects += 1
            log.info("reader %s (%s, %d baud) opened", self.port, self.protocol,
                     self.baudrate)
            if self.protocol == "pn532":  # connected once the chip answers
                self._set(False, "opened; waking the PN532")
            else:
                self._set(True, "connected")
            try:
                self._serve(self._serial)
            except (serial.SerialException, OSError) as exc:
                if not self._stop.is_set():
                    self.status.disconnects += 1
                    log.warning("reader %s disconnected: %s; reconnecting when it is back",
                                self.port, _short(exc))
                    self._set(False, f"disconnected: {_short(exc)}")
            except Exception:  # a bug must not kill the reader for good
                log.exception("reader %s failed; restarting it", self.port)
                self._set(False, "restarting after an error")
            finally:
                self._close()
            self._stop.wait(RETRY)
        self._close()
        self._set(False, "stopped")

    def _serve(self, port: serial.Serial) -> None:
        if self.protocol == "pn532":
            self._serve_pn532(port)
            return
        decoder = Rdm6300Decoder() if self.protocol == "rdm6300" else LinesDecoder(synced=False)
        self.status.rejects = decoder.rejects
        while not self._stop.is_set():
            data = port.read(max(1, min(port.in_waiting, 4096)))
            if not data:
                continue
            for uid in decoder.feed(data):
                self.status.frames += 1
                self._sighting(uid)

    def _serve_pn532(self, port: serial.Serial) -> None:
        from companion.readers.pn532 import Pn532Error, Pn532Session  # only for this chip

        session = Pn532Session(port, clock=self.clock, should_stop=self._stop.is_set)
        self.status.rejects = session.rejects
        failures = 0
        empty = 0
        ready = False
        while not self._stop.is_set():
            try:
                if not ready:
                    session.setup()
                    ready = True
                    failures = 0
                    log.info("reader %s: %s ready", self.port, session.firmware)
                    self._set(True, f"connected: {session.firmware}")
                uid = session.poll()
            except Pn532Error as exc:
                failures += 1
                session.rejects["no_answer"] += 1
                if failures == 3:
                    log.warning("reader %s: the PN532 does not answer (%s); waking it again",
                                self.port, exc)
                    self._set(False, f"opened, but the PN532 does not answer ({exc})")
                session.abort()
                ready = ready and failures < 3
                self._stop.wait(RETRY if failures >= 3 else POLL_GAP)
                continue
            failures = 0
            if uid is None:
                empty += 1
                if empty >= EMPTY_POLLS:
                    self.taps.field_empty()
            else:
                empty = 0
                self.status.frames += 1
                self._sighting(uid)
            self._stop.wait(POLL_GAP)

    def _sighting(self, uid: str) -> None:
        now = self.clock()
        if self.taps.seen(uid, now):
            self.status.taps += 1
            log.info("reader %s: tap of %s", self.port, fingerprint(uid))
            try:
                self.on_tap(uid, now)
            except Exception:
                log.exception("handling a tap of %s failed", fingerprint(uid))

    def _set(self, connected: bool, detail: str) -> None:
        self.status.connected = connected
        self.status.detail = detail
        if self.on_status is not None:
            try:
                self.on_status(self.status)
            except Exception:
                log.exception("reader status listener failed")

    def _close(self) -> None:
        port, self._serial = self._serial, None
        if port is not None:
            with contextlib.suppress(serial.SerialException, OSError):
                port.close()


def _short(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 120 else text[:117] + "..."
