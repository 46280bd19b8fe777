"""Spoken outcomes with the real espeak-ng voice: each line rendered ahead and said after its
outcome's sound, in the table's language, below the outcome sounds (the next press stops it and
never waits for it), whose turn it is, and the lever timer's last ten seconds."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import replace

from companion.audio.null_backend import NullBackend
from companion.audio.speaker import Priority, Speaker
from companion.bank import Bank
from companion.core.editions import editions
from companion.core.lever import Phase, TimerState
from companion.core.outcomes import Kind, Outcome
from companion.events import BlockOutcome, StateChanged, TimerChanged
from companion.i18n import LANGUAGES, translator
from companion.speech.announcer import Announcer
from companion.speech.lines import outcomes_of
from companion.speech.voice import Voice, espeak_available, render


def test_the_voice_is_installed() -> None:
    """espeak-ng is a Debian package the Makefile installs (never a silent skip)."""
    assert espeak_available()


def BLOCK() -> tuple[Outcome, ...]:
    return outcomes_of(editions()["celebration"].default_mode)


def test_the_lines_rendered_ahead_are_priced_by_the_ruleset() -> None:
    """What the voice renders ahead is every outcome of the edition's default press, priced by
    its ruleset (house rules included), not a list of its own."""
    from dataclasses import replace as changed

    mode = editions()["celebration"].default_mode
    labels = {o.label: o for o in outcomes_of(mode)}
    assert set(labels) == set(mode.odds())  # each class the block can draw, once
    assert labels["bowser"].coins == mode.fees["bowser"]
    house = changed(mode, fees={**mode.fees, "bowser": 4})
    assert {o.label: o for o in outcomes_of(house)}["bowser"].coins == 4
    assert outcomes_of(editions()["wiggly_worms"].default_mode) == ()  # the lever: no dice


def table(tmp_path, names=("Luigi", "Peach")):  # type: ignore[no-untyped-def]
    bank = Bank(tmp_path / "bank.sqlite3")
    bank.new_game("celebration", list(names))
    state = bank.state()
    bank.close()
    return state


def announcing(state, code: str = "en", **options):  # type: ignore[no-untyped-def]
    """A voice in ``code`` and an announcer on a null speaker, told the table ``state``."""
    speaker = Speaker(NullBackend())
    speaker.open()
    voice = Voice(LANGUAGES[code])
    announcer = Announcer(speaker, voice, translator(code), likely=BLOCK, **options)
    announcer.heard(StateChanged("game", "", state))
    return speaker, voice, announcer


async def settle(voice: Voice, lines: list[str]) -> None:
    for _ in range(200):
        if all(voice.ready(line) is not None for line in lines):
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the voice did not render its lines")


def test_render_speaks_each_language_differently() -> None:
    english = render("Luigi 4", LANGUAGES["en"])
    german = render("Luigi 4", LANGUAGES["de"])
    assert english.seconds > 0.3 and german.seconds > 0.3 and english.data != german.data
    assert render("Luigi 4", LANGUAGES["en"]).data == english.data  # the same line, the same


async def test_an_outcome_is_said_after_its_sound_in_the_tables_language(tmp_path) -> None:  # type: ignore[no-untyped-def]
    state = table(tmp_path)
    backend = NullBackend()
    speaker = Speaker(backend)
    speaker.open()
    voice = Voice(LANGUAGES["de"])
    announcer = Announcer(speaker, voice, translator("de"), likely=BLOCK)
    announcer.heard(StateChanged("game", "", state))  # renders the players' lines ahead
    luigi = state.players[0]
    await settle(voice, ["Luigi bekommt 3 Münzen", "Bowser! Luigi zahlt 5 Münzen"])
    announcer.heard(BlockOutcome(1, Outcome(Kind.COINS, 3, (2, 3)), 0.0, "button", True,
                                 sound_seconds=0.2, player=luigi.id))
    assert backend.played == []  # not during the outcome's sound
    await asyncio.sleep(0.35)
    assert announcer.spoken == ["Luigi bekommt 3 Münzen"]
    assert backend.played == [voice.ready("Luigi bekommt 3 Münzen")]
    # The next press stops a line still to come: its outcome is said instead.
    announcer.heard(BlockOutcome(2, Outcome(Kind.BOWSER, 5, (3,)), 1.0, "button", True,
                                 sound_seconds=0.3, player=luigi.id))
    announcer.heard(BlockOutcome(3, Outcome(Kind.COINS, 3, (1, 3)), 1.1, "button", True,
                                 sound_seconds=0.2, player=luigi.id))
    await asyncio.sleep(0.5)
    assert announcer.spoken == ["Luigi bekommt 3 Münzen", "Luigi bekommt 3 Münzen"]
    announcer.close()


async def test_whose_turn_and_the_timers_last_ten_seconds(tmp_path) -> None:  # type: ignore[no-untyped-def]
    state = table(tmp_path)
    _speaker, voice, announcer = announcing(state, time_up_seconds=0.1)
    peach = state.players[1]
    moved = replace(state, current_player=peach.id)
    await settle(voice, ["Peach's turn"])
    announcer.heard(StateChanged("next player", "", moved))
    await asyncio.sleep(0.1)
    assert announcer.spoken == ["Peach's turn"]
    timer = TimerState(Phase.RUNNING, 10.3, 30.0, False, 1, 30.0, False, 60.0)
    announcer.heard(TimerChanged("started", "lever", 1.0, 30.0, "", timer))
    await asyncio.sleep(0.9)
    assert announcer.spoken[-1] == "10 seconds left"
    announcer.heard(TimerChanged("time_up", "lever", None, 30.0, "", timer))
    await asyncio.sleep(1.0)
    assert announcer.spoken[-1] == "Time is up!"
    announcer.close()


def test_speech_is_below_the_outcome_sounds() -> None:
    assert Priority.BACKGROUND < Priority.SPEECH < Priority.OUTCOME


async def test_found_in_review_the_timers_lines_and_a_failing_render(
        tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A review found: a press cancelled the timer's "10 seconds left"; "Time is up!" was
    still said after the timer restarted; a render that failed outside espeak-ng (no temp
    folder) left the line pending for ever (the table never quiet)."""
    import tempfile

    state = table(tmp_path)
    _speaker, voice, announcer = announcing(state, time_up_seconds=0.3)
    voice.prepare(["10 seconds left", "Time is up!"])
    await settle(voice, ["10 seconds left", "Time is up!", "Luigi collects 2 coins"])
    timer = TimerState(Phase.RUNNING, 10.6, 30.0, False, 1, 30.0, False, 60.0)
    announcer.heard(TimerChanged("started", "lever", 1.0, 30.0, "", timer))
    announcer.heard(BlockOutcome(1, Outcome(Kind.COINS, 2, (1, 2)), 0.0, "button", True,
                                 sound_seconds=0.1, player=state.players[0].id))
    await asyncio.sleep(1.0)
    assert announcer.spoken == ["Luigi collects 2 coins", "10 seconds left"]
    announcer.heard(TimerChanged("time_up", "lever", None, 30.0, "", timer))
    announcer.heard(TimerChanged("started", "lever", 1.0, 30.0, "", timer))  # at once again
    await asyncio.sleep(0.5)
    assert announcer.spoken[-1] == "10 seconds left" and "Time is up!" not in announcer.spoken
    announcer.heard(TimerChanged("stopped", "lever", None, 30.0, "", timer))
    assert not announcer.pending
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "gone"))
    announcer.heard(BlockOutcome(2, Outcome(Kind.ROLL, 0, (4,)), 2.0, "button", True,
                                 sound_seconds=0.0, player=state.players[1].id))  # not ahead
    for _ in range(100):
        if not announcer.pending:
            break
        await asyncio.sleep(0.02)
    assert not announcer.pending and voice.failures == 1  # counted, never stuck
    monkeypatch.setattr(tempfile, "tempdir", None)
    voice.prepare(["Peach collects 5 coins"])
    await asyncio.sleep(0.5)
    await settle(voice, ["Peach collects 5 coins"])  # tried again once the disk is back
    announcer.close()


def test_an_untranslated_plural_falls_back_to_english() -> None:
    from companion.i18n import Translator

    t = Translator(LANGUAGES["de"], {"{n} second left": ("", "")}, lambda n: int(n != 1))
    assert t.ngettext("{n} second left", "{n} seconds left", 10) == "{n} seconds left"


def test_closing_the_voice_stops_a_line_being_rendered(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The daemon's exit never waits for espeak-ng: close() kills a render under way (here an
    "espeak-ng" that would take a minute), and nothing is counted as a failure."""
    slow = tmp_path / "slow-espeak"
    started = tmp_path / "started"
    slow.write_text(f"#!/bin/sh\ntouch {started}\nexec sleep 60\n")
    slow.chmod(0o755)
    voice = Voice(LANGUAGES["en"], executable=str(slow))
    line = voice.get("Luigi collects 4 coins")
    for _ in range(500):
        if started.exists() and voice._running:
            break
        threading.Event().wait(0.01)
    running = list(voice._running)
    assert len(running) == 1 and running[0].poll() is None
    voice.close()
    assert line.result(timeout=10) is None  # stopped, not finished: no minute-long wait
    assert running[0].wait(timeout=10) != 0 and not voice._running
    assert voice.failures == 0
