"""Sound through one ALSA stream that stays open while the daemon runs, mixed by us.

Why: opening ALSA for every sound (simpleaudio) costs a press about 1.6 ms of ALSA opens on a
~1 GHz core, and when nothing else plays dmix restarts the card, whose I2S clock restarting
is the MAX98357A's pop. Here the stream opens once and plays silence between sounds, so the
card never stops and a press only writes samples:

- a writer thread keeps about a buffer's worth of audio queued (waking once a period while a
  sound plays, every two periods in silence);
- a press takes back (rewinds) the queued frames the card has not reached, less a small
  guard, and writes its sound there at once, so it is heard after the guard, not the queue;
- stopping a sound takes its queued frames back the same way: cut within the guard.

How far ahead of the card a press may write (the guard): 64 frames, plus, on a card whose
position moves in steps (snd-aloop moves on the kernel's tick, 176 frames at HZ=250; a USB card
by its packets), one step, measured when the stream opens: a step passing the press's rewound
queue before the sound is written would underrun. The one exception is a press into silence
through dmix: an underrun there restarts only our side of the mixer (the card plays on, no
pop) and loses no sound, so the press takes the earliest frame and the rare restart is counted
apart (``restarts``) from underruns that lose sound (``xruns``).

A device that cannot rewind (rare: some plugins) keeps only two periods queued instead.

The writer never holds the lock while it mixes: it notes what to write (where, and the voices
as they are), renders without the lock, then takes it and writes only if no press, cut or
underrun moved the stream meanwhile (else it renders again). So a press waits for at most one
``snd_pcm_writei`` of the writer's, never for its mixing. A writer that fails on anything is
logged with its traceback and started again after a short pause (``writer_restarts``); while it
is down, ``fault`` says why (``/healthz``'s sound part and ``doctor`` show it).
"""

from __future__ import annotations

import errno
import logging
import threading
import time

from companion.audio.alsa_pcm import AlsaError, AlsaPcm
from companion.audio.backend import AudioError
from companion.audio.mixer import Mixer, Voice
from companion.audio.pcm import RATE, Pcm

log = logging.getLogger(__name__)

LATENCY_US = 380_000
"""The buffer asked for: ~372 ms, 16,384 frames through hardware/asound.conf's dmix (which sets
it; a smaller dmix buffer caps it). Kept nearly full, it carries a stalled Pi through: in the
machine tier in real time, 4,096 frames lost sound in 44-64 underruns per 50 presses (61-66
with a CPU hog), 16,384 in 5-11 (17-22). A press takes it back, at a price: dmix remixes each
frame taken back (about 40 ns a frame in the tier's ~1 GHz model: 0.6 ms under music)."""
GUARD_FRAMES = 64
"""Frames just ahead of the card's position never taken back (~1.5 ms: a DMA's FIFO)."""
FIRST_FRAMES = 1024
"""A press writes this much at once; the writer thread queues the rest."""
REOPEN_S = 2.0
"""How often a lost device is tried again."""
RESTART_S = (0.05, 5.0)
"""A failed writer is started again after the first pause, doubled on each failure in a row
up to the second."""
RENDER_TRIES = 8
"""Renders the writer throws away (the stream moved meanwhile) before it lets a top-up wait."""
STEP_PROBE_S = 0.03
"""How long the card's position is watched at the start, for the size of its steps."""
_LOST = {errno.ENODEV, errno.EBADFD, errno.EIO, errno.ENXIO, errno.ENOENT}


class _VoicePlayback:
    """A sound in the stream: playing until the card passes its last frame."""

    def __init__(self, backend: StreamBackend, voice: Voice) -> None:
        self._backend = backend
        self._voice = voice

    def is_playing(self) -> bool:
        return self._voice.playing_at(self._backend.position())

    def stop(self) -> None:
        self._backend.cut(self._voice)


class StreamBackend:
    """One always-open PCM on ``device`` (ALSA's ``default``: plug + dmix as shipped)."""

    name = "stream"

    def __init__(self, device: str = "default") -> None:
        self.device = device
        self.xruns = 0
        """Underruns that lost queued sound (the card ran out of what we had written)."""
        self.restarts = 0
        """Underruns that lost only silence (a press racing the card's step through dmix)."""
        self.step = 0
        """The largest move of the card's position seen at once, in frames."""
        self.rewinds = True
        """The device takes frames back; False: presses wait behind two periods."""
        self.short_rewinds = 0
        """Presses whose rewind the card's step cut short (their sound was placed a guard
        further on)."""
        self.overtaken = 0
        """Presses whose first frame the card's step passed during their write (see
        ``_overtaken``)."""
        self.writer_restarts = 0
        """Times the writer thread failed on something unexpected and was started again."""
        self.fault: str | None = None
        """Why the writer is down (None: it runs), until it has topped the queue up again."""
        self._mixer = Mixer()
        self._pcm: AlsaPcm | None = None
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._closing = False
        self._thread: threading.Thread | None = None
        self._lost: str | None = None
        self._appl = 0  # frames written, on the mixer's timeline
        self._moves = 0  # bumped by each press, cut, underrun and (re)open: the writer's renders
        self._hw = 0  # the card's position when last asked
        self._hw_at = 0.0
        self._keep = self._low = self._idle_low = 0
        self._fill = 0  # queued frames when the writer last planned a top-up
        self._instant = False  # a sink that swallows frames at once (ALSA's file+null): paced
        self._shared = False  # through dmix: an underrun restarts our side only

    # -- the AudioBackend contract ------------------------------------------------------
    def open(self) -> None:
        """Open the stream; if the device is missing, raise AudioError but keep trying in the
        background (a USB card plugged in later is taken up, as simpleaudio would)."""
        self._closing = False
        failed: AlsaError | None = None
        with self._lock:
            try:
                self._open_pcm()
            except AlsaError as exc:
                failed = exc
                self._lost = f"cannot open ALSA device {self.device!r}: {exc.strerror}"
        # The first top-up here: a device that fails its first writes is found lost before
        # the first press, not after it (and tried again REOPEN_S later, not at once).
        first = REOPEN_S if failed is not None else self._top_up()
        self._thread = threading.Thread(target=self._run, args=(first,), name="audio-stream",
                                        daemon=True)
        self._thread.start()
        if failed is not None:
            raise AudioError(self._lost) from failed

    def play(self, pcm: Pcm) -> _VoicePlayback:
        with self._lock:
            if self._pcm is None:
                raise AudioError(self._lost or "backend not opened")
            self._moves += 1
            try:
                voice = self._mixer.add(pcm, self._take_back())
                self._write(min(self._keep, FIRST_FRAMES))
                self._overtaken(voice)
            except AlsaError as exc:
                self._broken(exc)
                raise AudioError(f"ALSA device {self.device!r}: {exc.strerror}") from exc
        self._wake.set()
        return _VoicePlayback(self, voice)

    def close(self) -> None:
        self._closing = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None
        with self._lock:
            if self._pcm is not None:
                self._pcm.close()
                self._pcm = None
        log.info("audio stream: %d underruns losing sound, %d restarts in silence, %d presses "
                 "overtaken by the card, %d short rewinds", self.xruns, self.restarts,
                 self.overtaken, self.short_rewinds)

    # -- what playbacks ask ---------------------------------------------------------------
    def position(self) -> int:
        """The card's position on the mixer's timeline (last asked, moved on by the clock)."""
        with self._lock:
            if self._instant:
                return self._appl
            moved = int((time.monotonic() - self._hw_at) * RATE)
            return min(self._appl, self._hw + moved)

    def cut(self, voice: Voice) -> None:
        """Stop ``voice`` within the guard: its queued frames are taken back and rewritten."""
        with self._lock:
            self._moves += 1
            if self._pcm is None or not voice.playing_at(self._hw):
                Mixer.stop(voice, self._appl)
                return
            try:
                self._take_back()
                Mixer.stop(voice, self._appl)
                self._write(min(self._keep, FIRST_FRAMES))
            except AlsaError as exc:
                self._broken(exc)
        self._wake.set()

    # -- inside, always under the lock ------------------------------------------------------
    def _open_pcm(self) -> None:
        pcm = AlsaPcm(self.device)
        pcm.open(LATENCY_US)
        self._pcm, self._lost = pcm, None
        try:
            self._start(pcm)
        except AlsaError:
            pcm.close()
            self._pcm = None
            raise

    def _start(self, pcm: AlsaPcm) -> None:
        """Silence queued (the card starts and keeps running), then what the card can do."""
        self._mixer = Mixer()
        self._moves += 1
        period = pcm.period_frames
        self._keep = pcm.buffer_frames - period
        self._low = self._keep - period
        self._write(self._keep)
        self._instant = pcm.delay() == 0
        self.rewinds = not self._instant and pcm.rewindable() > GUARD_FRAMES
        if not self.rewinds:
            self._keep, self._low = 2 * period, period
        # Nothing playing: let the queue run down to one period before topping it up (half the
        # wake-ups; a press rewinds whatever is queued, so it waits no longer for it).
        self._idle_low = period if self.rewinds else self._low
        self._shared = "Direct Stream Mixing" in pcm.describe()
        self.step = 0 if self._instant else self._pointer_step(pcm)
        self._hw, self._hw_at = self._appl - pcm.delay(), time.monotonic()
        log.info("audio stream open on %r: buffer %d, period %d frames, position steps of up "
                 "to %d frames%s, %s", self.device, pcm.buffer_frames, period, self.step,
                 " (dmix)" if self._shared else "",
                 "presses rewind the queue" if self.rewinds else "no rewind: two periods queued")

    def _pointer_step(self, pcm: AlsaPcm) -> int:
        """The largest single move of the card's position over STEP_PROBE_S, or over half of
        what is queued if that is shorter (the queue is not topped up meanwhile)."""
        last, step = self._appl - pcm.delay(), 0
        end = time.monotonic() + min(STEP_PROBE_S, (self._appl - last) / RATE / 2)
        while time.monotonic() < end:
            time.sleep(0.0005)
            now = self._appl - pcm.delay()
            step, last = max(step, now - last), now
        return step

    def _take_back(self) -> int:
        """Rewind to the guard ahead of the card, and note where the card is; the first frame
        a new sound may take (``_appl``, or later if the card moved during the rewind)."""
        assert self._pcm is not None
        if not self.rewinds:
            return self._appl
        try:
            ahead = self._pcm.rewindable()
        except AlsaError as exc:  # it ran dry before the press: start again from here
            if exc.errno not in (errno.EPIPE, errno.ESTRPIPE):
                raise
            self._underrun(exc)
            return self._appl
        self._hw, self._hw_at = self._appl - ahead, time.monotonic()
        tight = self._shared and not self._queued_sound()
        guard = GUARD_FRAMES if tight else GUARD_FRAMES + self.step
        if ahead <= guard:
            return self._appl
        asked = ahead - guard
        took = self._pcm.rewind(asked)
        self._appl -= took
        if took == asked:
            return self._appl
        # A short rewind: the card stepped while the queue was taken back (dmix rewinds only
        # to where the card is then), so the stream now ends at or near the card. The sound
        # starts a guard further on, silence before it: written at the card, it would go
        # behind the card's next step and lose its first write.
        ahead = self._pcm.rewindable()
        self._hw, self._hw_at = self._appl - ahead, time.monotonic()
        self.short_rewinds += 1
        return self._appl + max(0, GUARD_FRAMES + self.step - ahead)

    def _overtaken(self, voice: Voice) -> None:
        """Note whether the card passed the sound's first frame while it was written (a step
        of the card inside dmix's write reports no underrun), and leave the sound where it is.

        Placing it again further on was wrong: usually dmix had mixed the frames before the
        step (the card plays them: the sound was heard from its start, then again from the
        new place, "a frame doubled" 374 frames in); when the step came first, dmix skipped
        the frames the card had passed and its rewind cannot take back frames it never mixed.
        Left alone, the sound is whole in the first case and loses only its first write in
        the second (counted in ``overtaken``: which of the two it was, alsa-lib cannot say)."""
        assert self._pcm is not None
        if not self.rewinds:
            return
        ahead = self._pcm.rewindable()
        self._hw, self._hw_at = self._appl - ahead, time.monotonic()
        if self._hw > voice.start:
            self.overtaken += 1
            log.debug("audio stream: the card's step passed a press's first frame during its "
                      "write (%d so far)", self.overtaken)

    def _queued_sound(self) -> bool:
        """Some sound is written and not yet played (an underrun now would cut it)."""
        return any(v.start < self._appl and v.end > self._hw for v in self._mixer.voices)

    def _underrun(self, exc: AlsaError) -> None:
        """Count an underrun by what it lost, and get the stream going again."""
        if self._queued_sound():
            self.xruns += 1
        else:
            self.restarts += 1
        log.debug("audio stream underrun (%d losing sound, %d in silence)", self.xruns,
                  self.restarts)
        assert self._pcm is not None
        self._moves += 1
        self._pcm.recover(exc)
        # The stream starts again where the card is now, and a step of the card can pass its
        # first frames before they are written: sounds not yet begun wait behind a guard of
        # silence, so a restart never cuts an onset.
        pad = GUARD_FRAMES + self.step
        for voice in self._mixer.voices:
            if voice.start >= self._appl:
                voice.start += pad
                voice.end += pad

    def _write(self, frames: int) -> int:
        assert self._pcm is not None
        try:
            done = self._pcm.write(self._mixer.render(self._appl, frames))
        except AlsaError as exc:
            if exc.errno not in (errno.EPIPE, errno.ESTRPIPE):
                raise
            self._underrun(exc)
            done = self._pcm.write(self._mixer.render(self._appl, frames))
        self._appl += done
        return done

    def _top_up(self) -> float:
        """Queue up to ``keep`` frames, rendered outside the lock; seconds until the queue is
        down to ``low`` (or until the device is tried again)."""
        for _ in range(RENDER_TRIES):
            with self._lock:
                planned = self._plan()
                if isinstance(planned, float):
                    return planned
                start, frames, moves = self._appl, planned, self._moves
                mixer = self._mixer.copy()
            data = mixer.render(start, frames)  # the lock is free: a press goes first
            with self._lock:
                if self._pcm is None or self._moves != moves or self._appl != start:
                    continue  # a press, a cut or an underrun moved the stream: render again
                try:
                    return self._queue(data, frames)
                except AlsaError as exc:
                    if exc.errno not in (errno.EPIPE, errno.ESTRPIPE):
                        self._broken(exc)
                        return REOPEN_S
                    self._underrun(exc)  # voices not begun moved: render again
        return 0.001

    def _plan(self) -> int | float:
        """Under the lock: how many frames to queue now, or (a float) seconds to wait."""
        if self._pcm is None:
            try:
                self._open_pcm()
            except AlsaError as exc:
                log.debug("audio stream still lost: %s", exc)
                return REOPEN_S
            log.info("audio stream open again on %r", self.device)
        assert self._pcm is not None
        try:
            fill = self._pcm.delay()
        except AlsaError as exc:
            if exc.errno not in (errno.EPIPE, errno.ESTRPIPE):
                self._broken(exc)
                return REOPEN_S
            self._underrun(exc)
            fill = 0
        if self._instant:
            return self._keep
        self._hw, self._hw_at = self._appl - fill, time.monotonic()
        low = self._low if self._mixer.active(self._hw) else self._idle_low
        if fill > low:
            self._mixer.forget_before(self._hw)
            return max(0.001, (fill - low) / RATE)
        self._fill = fill
        return self._keep - fill

    def _queue(self, data: bytes, frames: int) -> float:
        """Under the lock, nothing moved since ``_plan``: write the rendered frames."""
        assert self._pcm is not None
        done = self._pcm.write(data)
        self._appl += done
        if self._instant:
            self._mixer.forget_before(self._appl)
            return max(done, 1) / RATE
        self._mixer.forget_before(self._hw)
        low = self._low if self._mixer.active(self._hw) else self._idle_low
        return max(0.001, (self._fill + done - low) / RATE)

    def _broken(self, exc: AlsaError) -> None:
        if exc.errno not in _LOST:  # a call that failed once; the stream itself is fine
            log.debug("audio stream: %s", exc)
            return
        self._lost = f"ALSA device {self.device!r} lost: {exc.strerror}"
        log.warning("%s; trying again every %.0f s", self._lost, REOPEN_S)
        if self._pcm is not None:
            self._pcm.close()
            self._pcm = None

    def _run(self, first: float) -> None:
        """Keep the queue topped up until closed; started again after anything unexpected."""
        pause = RESTART_S[0]
        self._wake.wait(first)
        self._wake.clear()
        while not self._closing:
            try:
                timeout = self._top_up()
            except Exception as exc:
                self.writer_restarts += 1
                self.fault = f"the sound writer failed ({type(exc).__name__}: {exc})"
                log.exception("audio stream: %s; starting it again in %.2f s (%d restarts so "
                              "far)", self.fault, pause, self.writer_restarts)
                self._wake.wait(pause)
                self._wake.clear()
                pause = min(pause * 2, RESTART_S[1])
                continue
            if self.fault is not None:
                log.warning("audio stream: the sound writer runs again")
                self.fault = None
            pause = RESTART_S[0]
            self._wake.wait(timeout)
            self._wake.clear()
