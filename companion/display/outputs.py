"""Where finished frames go: an SDL window or panel (kmsdrm, x11, wayland, dummy) or a Linux
framebuffer device written directly (SPI panels behind fbtft, or any ``/dev/fbN``).

Frames are rendered at the logical size; an output turns them (``rotate``) and scales them to
the device if the device is larger, keeping the aspect ratio.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Protocol

from companion.config import DisplayConfig
from companion.display import has_desktop
from companion.sdl import pygame

log = logging.getLogger(__name__)


class DisplayUnavailable(RuntimeError):
    """No way to show frames; the message says what was tried."""


class Output(Protocol):
    name: str
    needs_pump: bool
    """True for desktop windows, whose events must be read now and then."""

    def show(self, frame: pygame.Surface) -> None: ...

    def pump(self) -> bool:
        """Read window events; False when the user closed the window."""
        ...

    def close(self) -> None: ...


def turned(frame: pygame.Surface, rotate: int) -> pygame.Surface:
    """The frame turned clockwise by ``rotate`` degrees."""
    return pygame.transform.rotate(frame, -rotate) if rotate else frame


def fitted(frame: pygame.Surface, size: tuple[int, int]) -> tuple[pygame.Surface, tuple[int, int]]:
    """The frame scaled to fit ``size`` (aspect kept) and where to put it, centred."""
    fw, fh = frame.get_size()
    if (fw, fh) == size:
        return frame, (0, 0)
    scale = min(size[0] / fw, size[1] / fh)
    scaled = pygame.transform.smoothscale(frame, (max(1, round(fw * scale)),
                                                  max(1, round(fh * scale))))
    return scaled, ((size[0] - scaled.get_width()) // 2, (size[1] - scaled.get_height()) // 2)


def physical_size(cfg: DisplayConfig) -> tuple[int, int]:
    w, h = cfg.pixels
    return (h, w) if cfg.rotate in (90, 270) else (w, h)


class SdlOutput:
    """A pygame display: a window on a desktop, the whole panel under kmsdrm."""

    def __init__(self, cfg: DisplayConfig, driver: str | None) -> None:
        before = os.environ.get("SDL_VIDEODRIVER")
        if driver:
            os.environ["SDL_VIDEODRIVER"] = driver
        try:
            pygame.display.init()
        except pygame.error as exc:
            if before is None:
                os.environ.pop("SDL_VIDEODRIVER", None)
            else:
                os.environ["SDL_VIDEODRIVER"] = before
            raise DisplayUnavailable(f"SDL video driver {driver or 'default'}: {exc}") from None
        self.name = f"sdl:{pygame.display.get_driver()}"
        self.rotate = cfg.rotate
        invisible = pygame.display.get_driver() in ("dummy", "offscreen")
        fullscreen = cfg.fullscreen == "yes" or (cfg.fullscreen == "auto" and not has_desktop()
                                                 and not invisible)
        # A window on a desktop must read its events (close button, window manager pings).
        self.needs_pump = has_desktop() and not invisible
        self._last: pygame.Surface | None = None
        try:
            if fullscreen:
                self.window = pygame.display.set_mode((0, 0), pygame.FULLSCREEN)
                pygame.mouse.set_visible(False)
            else:
                self.window = pygame.display.set_mode(physical_size(cfg))
                pygame.display.set_caption("Question Block")
        except pygame.error as exc:
            pygame.display.quit()
            raise DisplayUnavailable(f"{self.name}: {exc}") from None

    def show(self, frame: pygame.Surface) -> None:
        image, at = fitted(turned(frame, self.rotate), self.window.get_size())
        self._last = frame
        if at != (0, 0):
            self.window.fill((0, 0, 0))
        self.window.blit(image, at)
        pygame.display.flip()

    def pump(self) -> bool:
        events = pygame.event.get()
        exposed = any(e.type in (pygame.VIDEOEXPOSE, getattr(pygame, "WINDOWEXPOSED", -1))
                      for e in events)
        if exposed and self._last is not None:  # uncovered: paint the last frame again
            self.show(self._last)
        return not any(e.type == pygame.QUIT for e in events)

    def close(self) -> None:
        pygame.display.quit()


class FramebufferOutput:
    """Writes frames straight into a Linux framebuffer (16 bpp RGB565 or 32 bpp XRGB)."""

    needs_pump = False

    def __init__(self, path: Path, rotate: int = 0,
                 geometry: tuple[int, int, int, int] | None = None) -> None:
        self.path = path
        self.rotate = rotate
        self.name = f"fbdev:{path}"
        try:
            self.width, self.height, self.bpp, self.stride = geometry or _fb_geometry(path)
            self.fd = os.open(path, os.O_RDWR)
        except OSError as exc:
            raise DisplayUnavailable(f"framebuffer {path}: {exc.strerror or exc}") from None
        if self.bpp not in (16, 32):
            os.close(self.fd)
            raise DisplayUnavailable(f"framebuffer {path}: {self.bpp} bits per pixel is not "
                                     "supported (16 or 32)")
        if self.bpp == 16:
            self.canvas = pygame.Surface((self.width, self.height), 0, 16,
                                         (0xF800, 0x07E0, 0x001F, 0))
        else:
            self.canvas = pygame.Surface((self.width, self.height), 0, 32,
                                         (0xFF0000, 0x00FF00, 0x0000FF, 0))

    def show(self, frame: pygame.Surface) -> None:
        image, at = fitted(turned(frame, self.rotate), (self.width, self.height))
        self.canvas.fill((0, 0, 0))
        self.canvas.blit(image, at)
        row = self.width * self.bpp // 8
        pixels = self.canvas.get_buffer().raw
        pitch = self.canvas.get_pitch()
        if pitch == self.stride == row:
            os.pwrite(self.fd, pixels[: row * self.height], 0)
            return
        data = bytearray(self.stride * self.height)
        for y in range(self.height):
            data[y * self.stride: y * self.stride + row] = pixels[y * pitch: y * pitch + row]
        os.pwrite(self.fd, bytes(data), 0)

    def pump(self) -> bool:
        return True

    def close(self) -> None:
        os.close(self.fd)


def _fb_geometry(path: Path) -> tuple[int, int, int, int]:
    """(width, height, bits per pixel, bytes per line) from sysfs."""
    sysfs = Path("/sys/class/graphics") / path.name
    w, h = (int(v) for v in (sysfs / "virtual_size").read_text().strip().split(","))
    bpp = int((sysfs / "bits_per_pixel").read_text())
    stride = int((sysfs / "stride").read_text())
    return w, h, bpp, stride


INVISIBLE = ("offscreen", "dummy")
"""SDL drivers that show nothing: only used when asked for by name."""


def open_output(cfg: DisplayConfig) -> Output:
    """The first output that works for ``cfg.driver``; DisplayUnavailable says what failed."""
    env = os.environ.get("SDL_VIDEODRIVER")
    if cfg.driver == "fbdev":
        return FramebufferOutput(Path(cfg.framebuffer), cfg.rotate)
    if cfg.driver != "auto":
        return SdlOutput(cfg, cfg.driver)
    if env:  # asked for by name (tests: dummy)
        return SdlOutput(cfg, env)
    tried = []
    attempts = (["desktop"] if has_desktop() else []) + ["kmsdrm", "fbdev"]
    for attempt in attempts:
        try:
            if attempt == "fbdev":
                return FramebufferOutput(Path(cfg.framebuffer), cfg.rotate)
            output = SdlOutput(cfg, None if attempt == "desktop" else attempt)
        except DisplayUnavailable as exc:
            tried.append(str(exc))
            continue
        if output.name.removeprefix("sdl:") in INVISIBLE:  # a desktop we cannot reach
            output.close()
            tried.append(f"desktop ($DISPLAY/$WAYLAND_DISPLAY set) unreachable: SDL fell back "
                         f"to {output.name}")
            continue
        return output
    raise DisplayUnavailable("; ".join(tried))
