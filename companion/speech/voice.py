"""The voice: espeak-ng (offline, a Debian package) renders a line into our PCM format. Lines
are rendered ahead, on a worker thread, so a spoken outcome starts the moment its sound ends.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import subprocess
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from companion.audio.pcm import Pcm, SoundFileError, read_wav
from companion.i18n import Language

log = logging.getLogger(__name__)

ESPEAK = "espeak-ng"
WORDS_PER_MINUTE = 165
"""A little slower than espeak-ng's 175: heard across a table, over the game's chatter."""
KEPT = 256
"""Lines kept rendered (the current players' outcomes and turns, a few languages' worth)."""


class VoiceError(RuntimeError):
    """espeak-ng is missing or could not say a line."""


def espeak_available(executable: str = ESPEAK) -> bool:
    return shutil.which(executable) is not None


def render(text: str, language: Language, executable: str = ESPEAK,
           speed: int = WORDS_PER_MINUTE, running: set[subprocess.Popen[bytes]] | None = None
           ) -> Pcm:
    """``text`` said by espeak-ng in ``language``'s voice, as our PCM (44.1 kHz mono);
    the espeak-ng process is in ``running`` while it runs (so a closing voice can stop it)."""
    path = shutil.which(executable)
    if path is None:
        raise VoiceError(f"{executable} is not installed (apt install espeak-ng)")
    try:
        with tempfile.TemporaryDirectory(prefix="companion-voice-") as folder:
            wav = Path(folder) / "line.wav"
            with subprocess.Popen([path, "-v", language.voice, "-s", str(speed), "-w",
                                   str(wav), "--", text], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE) as proc:
                if running is not None:
                    running.add(proc)
                try:
                    _out, err = proc.communicate(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    raise
                finally:
                    if running is not None:
                        running.discard(proc)
            if proc.returncode != 0:
                raise VoiceError(f"{executable} could not say {text!r}: exit "
                                 f"{proc.returncode} {err.decode(errors='replace').strip()}")
            return read_wav(wav)
    except (subprocess.SubprocessError, OSError, SoundFileError) as exc:
        raise VoiceError(f"{executable} could not say {text!r}: {exc}") from exc


class Voice:
    """Lines in one language, rendered ahead and kept (the least recently used go first)."""

    def __init__(self, language: Language, *, executable: str = ESPEAK) -> None:
        self.language = language
        self.executable = executable
        self._kept: OrderedDict[str, Pcm] = OrderedDict()
        self._pending: dict[str, Future[Pcm | None]] = {}
        self._lock = threading.Lock()
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="voice")
        self._urgent = ThreadPoolExecutor(max_workers=1, thread_name_prefix="voice-now")
        """A line due now that was not rendered ahead skips the queue of lines ahead."""
        self.failures = 0
        self._running: set[subprocess.Popen[bytes]] = set()
        self._closed = False

    def prepare(self, lines: Iterable[str]) -> None:
        """Render ``lines`` in the background (those kept already are skipped)."""
        for line in lines:
            self._submit(line)

    def _done(self, line: str) -> Future[Pcm | None] | None:
        """The line as a finished future if it is kept (call with the lock held)."""
        if line not in self._kept:
            return None
        done: Future[Pcm | None] = Future()
        done.set_result(self._kept[line])
        return done

    def _submit(self, line: str) -> Future[Pcm | None]:
        with self._lock:
            kept = self._done(line)
            if kept is not None:
                return kept
            pending = self._pending.get(line)
            if pending is None:
                pending = self._worker.submit(self._render, line)
                self._pending[line] = pending
            return pending

    def _render(self, line: str) -> Pcm | None:
        pcm = None
        try:
            if self._closed:
                return None
            pcm = render(line, self.language, self.executable, running=self._running)
        except Exception as exc:  # never a stuck line: counted, logged, tried again later
            if not self._closed:  # (a line stopped by close() is no failure)
                self.failures += 1
                log.warning("the voice can't say a line: %s", exc)
        finally:
            with self._lock:
                self._pending.pop(line, None)
        with self._lock:
            if pcm is not None:
                self._kept[line] = pcm
                self._kept.move_to_end(line)
                while len(self._kept) > KEPT:
                    self._kept.popitem(last=False)
        return pcm

    def ready(self, line: str) -> Pcm | None:
        """The line if it is rendered already (no waiting)."""
        with self._lock:
            pcm = self._kept.get(line)
            if pcm is not None:
                self._kept.move_to_end(line)
            return pcm

    def get(self, line: str) -> Future[Pcm | None]:
        """The line, rendered now (ahead of the lines queued to render) if it is not yet."""
        with self._lock:
            kept = self._done(line)
        return kept if kept is not None else self._urgent.submit(self._render, line)

    def close(self) -> None:
        """Stop: nothing more is rendered, and a line being rendered is stopped now (the
        daemon's exit never waits for espeak-ng)."""
        self._closed = True
        self._worker.shutdown(wait=False, cancel_futures=True)
        self._urgent.shutdown(wait=False, cancel_futures=True)
        for proc in list(self._running):
            with contextlib.suppress(OSError):
                proc.kill()
