"""A thin ctypes binding of alsa-lib's PCM calls the stream backend needs (no new dependency:
libasound2 is already there for simpleaudio). Non-blocking; every call releases the GIL."""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import logging

from companion.audio.pcm import CHANNELS, RATE

log = logging.getLogger(__name__)

_PLAYBACK, _NONBLOCK = 0, 1
_FORMAT_S16_LE, _ACCESS_RW_INTERLEAVED = 2, 3
_uframes = ctypes.c_ulong
_sframes = ctypes.c_long
_HANDLER = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
                            ctypes.c_char_p)


class AlsaError(OSError):
    """An alsa-lib call failed; ``errno`` is the positive error number, ``strerror`` alsa-lib's
    words for it, ``call`` what we were doing."""

    def __init__(self, number: int, reason: str, call: str = "") -> None:
        super().__init__(number, reason)
        self.call = call

    def __str__(self) -> str:
        return f"{self.call}: {self.strerror}" if self.call else str(self.strerror)


def _log_alsa(file: bytes, line: int, func: bytes, err: int, fmt: bytes) -> None:
    log.debug("alsa-lib %s:%d %s: %s", file.decode(errors="replace"), line,
              func.decode(errors="replace"), fmt.decode(errors="replace"))


_handler = _HANDLER(_log_alsa)
_lib: ctypes.CDLL | None = None


def libasound() -> ctypes.CDLL:
    """alsa-lib, loaded once, its messages sent to our log at DEBUG instead of stderr."""
    global _lib
    if _lib is None:
        name = ctypes.util.find_library("asound")
        if not name:
            raise AlsaError(errno.ENOENT, "alsa-lib (libasound.so.2) is not installed", "load")
        lib = ctypes.CDLL(name)
        for fn, res, args in (
            ("snd_pcm_open", ctypes.c_int,
             [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_int, ctypes.c_int]),
            ("snd_pcm_set_params", ctypes.c_int,
             [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_uint, ctypes.c_uint,
              ctypes.c_int, ctypes.c_uint]),
            ("snd_pcm_get_params", ctypes.c_int,
             [ctypes.c_void_p, ctypes.POINTER(_uframes), ctypes.POINTER(_uframes)]),
            ("snd_pcm_sw_params_malloc", ctypes.c_int, [ctypes.POINTER(ctypes.c_void_p)]),
            ("snd_pcm_sw_params_free", None, [ctypes.c_void_p]),
            ("snd_pcm_sw_params_current", ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p]),
            ("snd_pcm_sw_params_set_start_threshold", ctypes.c_int,
             [ctypes.c_void_p, ctypes.c_void_p, _uframes]),
            ("snd_pcm_sw_params", ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p]),
            ("snd_pcm_delay", ctypes.c_int, [ctypes.c_void_p, ctypes.POINTER(_sframes)]),
            ("snd_pcm_rewindable", _sframes, [ctypes.c_void_p]),
            ("snd_pcm_avail", _sframes, [ctypes.c_void_p]),
            ("snd_pcm_rewind", _sframes, [ctypes.c_void_p, _uframes]),
            ("snd_pcm_writei", _sframes, [ctypes.c_void_p, ctypes.c_char_p, _uframes]),
            ("snd_pcm_recover", ctypes.c_int, [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]),
            ("snd_pcm_drop", ctypes.c_int, [ctypes.c_void_p]),
            ("snd_pcm_close", ctypes.c_int, [ctypes.c_void_p]),
            ("snd_strerror", ctypes.c_char_p, [ctypes.c_int]),
            ("snd_output_buffer_open", ctypes.c_int, [ctypes.POINTER(ctypes.c_void_p)]),
            ("snd_output_buffer_string", ctypes.c_size_t,
             [ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p)]),
            ("snd_output_close", ctypes.c_int, [ctypes.c_void_p]),
            ("snd_pcm_dump", ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p]),
            ("snd_lib_error_set_handler", ctypes.c_int, [_HANDLER]),
        ):
            getattr(lib, fn).restype = res
            getattr(lib, fn).argtypes = args
        lib.snd_lib_error_set_handler(_handler)
        _lib = lib
    return _lib


def route_alsa_messages_to_logging() -> None:
    """alsa-lib prints its errors on stderr; send them to our log at DEBUG (best effort)."""
    try:
        libasound()
    except OSError:
        log.debug("could not install the alsa-lib error handler")


def _check(lib: ctypes.CDLL, result: int, what: str) -> int:
    if result < 0:
        raise AlsaError(-result, lib.snd_strerror(result).decode(errors="replace"), what)
    return result


class AlsaPcm:
    """One playback PCM in the canonical format (44.1 kHz, s16le, mono; ``plug`` converts)."""

    def __init__(self, device: str = "default") -> None:
        self.device = device
        self.buffer_frames = 0
        self.period_frames = 0
        self._lib = libasound()
        self._pcm = ctypes.c_void_p()

    def open(self, latency_us: int) -> None:
        """Open non-blocking; the buffer is about ``latency_us`` (the device may round it).
        The stream starts with the first frame written."""
        lib = self._lib
        _check(lib, lib.snd_pcm_open(ctypes.byref(self._pcm), self.device.encode(), _PLAYBACK,
                                     _NONBLOCK), f"open {self.device!r}")
        try:
            _check(lib, lib.snd_pcm_set_params(self._pcm, _FORMAT_S16_LE, _ACCESS_RW_INTERLEAVED,
                                               CHANNELS, RATE, 1, latency_us), "set params")
            buffer, period = _uframes(), _uframes()
            _check(lib, lib.snd_pcm_get_params(self._pcm, ctypes.byref(buffer),
                                               ctypes.byref(period)), "get params")
            self.buffer_frames, self.period_frames = buffer.value, period.value
            sw = ctypes.c_void_p()
            _check(lib, lib.snd_pcm_sw_params_malloc(ctypes.byref(sw)), "sw params")
            try:
                _check(lib, lib.snd_pcm_sw_params_current(self._pcm, sw), "sw params")
                _check(lib, lib.snd_pcm_sw_params_set_start_threshold(self._pcm, sw, 1),
                       "start threshold")
                _check(lib, lib.snd_pcm_sw_params(self._pcm, sw), "sw params")
            finally:
                lib.snd_pcm_sw_params_free(sw)
        except AlsaError:
            self.close()
            raise

    def delay(self) -> int:
        """Frames written and not yet played (what a new frame waits behind)."""
        out = _sframes()
        _check(self._lib, self._lib.snd_pcm_delay(self._pcm, ctypes.byref(out)), "delay")
        return max(0, out.value)

    def rewind(self, frames: int) -> int:
        """Take back up to ``frames`` unplayed frames; how many were taken back."""
        if frames <= 0:
            return 0
        return _check(self._lib, self._lib.snd_pcm_rewind(self._pcm, frames), "rewind")

    def rewindable(self) -> int:
        """Unplayed frames that can be taken back, from the card's position now (asked of the
        driver first: alsa-lib's own idea of it may be a period old)."""
        _check(self._lib, self._lib.snd_pcm_avail(self._pcm), "avail")
        return max(0, self._lib.snd_pcm_rewindable(self._pcm))

    def write(self, data: bytes) -> int:
        """Write canonical frames; how many the device took (0 if it is full)."""
        result = self._lib.snd_pcm_writei(self._pcm, data, len(data) // (2 * CHANNELS))
        if result == -errno.EAGAIN:
            return 0
        return _check(self._lib, result, "write")

    def recover(self, error: AlsaError) -> None:
        """Get going again after an underrun (-EPIPE) or a suspend; raises if it cannot."""
        _check(self._lib, self._lib.snd_pcm_recover(self._pcm, -(error.errno or errno.EIO), 1),
               "recover")

    def describe(self) -> str:
        """alsa-lib's own account of the PCM and every plugin under it (``snd_pcm_dump``)."""
        out = ctypes.c_void_p()
        if self._lib.snd_output_buffer_open(ctypes.byref(out)) < 0:
            return ""
        try:
            self._lib.snd_pcm_dump(self._pcm, out)
            text = ctypes.c_char_p()
            size = self._lib.snd_output_buffer_string(out, ctypes.byref(text))
            return (text.value or b"")[:size].decode(errors="replace")
        finally:
            self._lib.snd_output_close(out)

    def close(self) -> None:
        if self._pcm.value:
            self._lib.snd_pcm_drop(self._pcm)
            self._lib.snd_pcm_close(self._pcm)
            self._pcm = ctypes.c_void_p()
