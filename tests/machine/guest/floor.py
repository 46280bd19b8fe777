"""The floor: the bare libraries doing the companion's job, nothing of ours in between.

A gpiozero Button (no debounce) whose press plays a sound with simpleaudio's ``play_buffer``
(ALSA opened for the sound, as the companion's simpleaudio backend does). Run in the guest:

    floor.py PIN SOUND.raw
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import simpleaudio
from gpiozero import Button


def main() -> int:
    pin, sound = int(sys.argv[1]), Path(sys.argv[2]).read_bytes()
    stops = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, stops)  # before gpiozero's threads start
    button = Button(pin, pull_up=True, bounce_time=None)
    plays: list[simpleaudio.PlayObject] = []

    def pressed() -> None:
        plays.append(simpleaudio.play_buffer(sound, 1, 2, 44100))
        del plays[:-4]

    button.when_pressed = pressed
    print("ready", flush=True)
    signal.sigwait(stops)
    button.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
