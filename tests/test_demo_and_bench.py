"""The newcomer's paths: the demo driven from a pipe, and ``companion bench``'s JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.bench import press_to_pcm
from tests.conftest import ROOT, read_until_closed, run_companion, spawn_companion, wait_for_line


def test_demo_presses_from_piped_keyboard_and_exits_after_the_sound() -> None:
    done = run_companion("demo", "--audio", "null", "--seed", "3", stdin="\n")
    assert done.returncode == 0, done.stderr
    # On a network, a line for other devices follows the tablet's (no QR code into a pipe).
    lines = [line for line in done.stdout.splitlines()
             if not line.startswith("  from a phone or tablet on this network: http://")]
    assert lines[0].startswith("Question Block demo: press Enter")
    assert lines[3].startswith("  tablet on this computer: http://127.0.0.1:")
    assert "/#token=" in lines[3]
    assert lines[4] == "  coins: *Mario 30 | Luigi 30 | Peach 30 | Yoshi 30"
    assert lines[5].startswith("press 1: ")
    assert lines[6].startswith("  bank: Mario ")  # the outcome went to the current player
    assert lines[-1] == "bye: 1 press, 0 ignored while sounding"
    assert done.stderr == ""  # the demo's log shows only trouble


def test_demo_on_loopback_only_has_no_link_for_other_devices(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[web]\nhost = "127.0.0.1"\nport = 0\n')
    done = run_companion("demo", "--audio", "null", "--config", str(config), stdin="")
    assert done.returncode == 0, done.stderr
    assert "  tablet on this computer: http://127.0.0.1:" in done.stdout
    assert "on this network" not in done.stdout


def test_demo_prints_the_lan_link_with_a_qr_code_on_a_terminal() -> None:
    from companion.demo import _tablet_links
    from companion.i18n import translator
    from companion.web.server import WebServer

    server = WebServer(runner=None, host="192.0.2.7", port=8080,  # type: ignore[arg-type]
                       token="t0k")
    main, follower = os.openpty()
    saved = sys.stdout
    try:
        with os.fdopen(os.dup(follower), "w") as terminal:
            sys.stdout = terminal
            _tablet_links(server, translator("en"))
    finally:
        sys.stdout = saved
    os.close(follower)
    written = bytearray()
    read_until_closed(main, written)  # all of it, until the closed terminal says EIO
    os.close(main)
    shown = written.decode()
    lines = shown.splitlines()
    assert lines[0] == "  tablet on this computer: http://192.0.2.7:8080/#token=t0k"
    assert lines[1] == "  from a phone or tablet on this network: http://192.0.2.7:8080/#token=t0k"
    qr = lines[2:]
    assert len(qr) > 10 and all(set(row.strip()) <= set("\u2580\u2584\u2588 ") for row in qr)
    assert any("\u2588" in row or "\u2580" in row for row in qr)


def test_demo_without_a_sound_card_says_so_in_its_welcome_not_as_a_warning(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".asoundrc").write_text("pcm.!default { type hw; card 99 }\n")  # no such card
    env = {**os.environ, "HOME": str(home)}
    done = run_companion("demo", "--audio", "simpleaudio", "--display", "off", stdin="\n",
                         env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[3] == ("  no sound on this machine: outcomes are shown here and on the tablet "
                        "(companion doctor says why)")
    assert lines[4].startswith("  tablet on this computer: ")
    assert any(line.endswith("(no sound)") for line in lines)
    assert done.stderr == ""  # no timestamped WARNING before the welcome


def test_demo_keys_drive_the_bank() -> None:
    # Make Peach current, pass GO, undo it, nobody current, then press: unassigned.
    done = run_companion("demo", "--audio", "null", "--seed", "3", stdin="3gu0\n")
    assert done.returncode == 0, done.stderr
    bank_lines = [line for line in done.stdout.splitlines() if line.startswith("  bank:")]
    assert bank_lines[:3] == [
        "  bank: Peach is current",
        "  bank: the Bank pays Peach 2 (passed GO)",
        "  bank: Undo: Peach passed GO: +2",
    ]
    assert bank_lines[4] == ("  bank: nobody is current: the outcome waits for a player (give "
                             "it on the tablet)")


def test_demo_lever_key_runs_the_timer_to_its_end(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text("[lever]\nseconds = 1\n")
    done = run_companion("demo", "--audio", "null", "--config", str(config), stdin="l")
    assert done.returncode == 0, done.stderr
    timer = [line for line in done.stdout.splitlines() if line.startswith("timer:")]
    assert timer == ["timer: 1 s (lever): Time is running", "timer: time's up!"]


def test_demo_without_a_keyboard_runs_until_sigterm() -> None:
    with spawn_companion("demo", "--audio", "null", stdin=subprocess.DEVNULL) as proc:
        wait_for_line(proc.stdout, "no keyboard")
        proc.terminate()
        out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert "bye: 0 presses" in out and "Traceback" not in err


def test_demo_quits_on_q() -> None:
    done = run_companion("demo", "--audio", "null", stdin="q")
    assert done.returncode == 0
    assert "press 1" not in done.stdout


def test_demo_auto_presses_each_after_the_last_sound() -> None:
    done = run_companion("demo", "--audio", "null", "--auto", "3")
    assert done.returncode == 0, done.stderr
    presses = [line.split(":")[0] for line in done.stdout.splitlines()
               if not line.startswith("  ")]
    assert presses == ["press 1", "press 2", "press 3", "bye"]
    assert done.stdout.endswith("bye: 3 presses, 0 ignored while sounding\n")


@pytest.mark.parametrize("backend", ["stream", "simpleaudio"])
def test_bench_press_to_pcm_through_a_fifo(backend: str) -> None:
    figures = press_to_pcm(presses=5, backend=backend)
    assert figures["backend"] == backend
    latency, floor = figures["press_to_pcm_ms"], figures["press_to_pcm_floor_ms"]
    for measured in (latency, floor):  # the daemon's presses and the bare stack's, interleaved
        assert measured["n"] == 5 and measured["lost"] == 0
        assert 0 < measured["p50"] <= measured["p90"] <= measured["p99"] <= measured["max"]
    assert figures["press_to_pcm_ratio"] == {
        q: pytest.approx(latency[q] / floor[q], abs=0.01) for q in ("p50", "p90", "p99")}
    # simpleaudio drains each sound: it leaves ALSA's file plugin at once. The stream never
    # drains: the plugin holds one buffer (4410 frames for 100 ms) behind what was written.
    assert floor["lag_frames"] == 0
    assert (latency["lag_frames"] > 0) == (backend == "stream")
    assert figures["rss_mib"] > 0


def test_bench_command_prints_json_figures() -> None:
    # A hang guard, not a time limit: the bench needs about 75 s of CPU, which a loaded
    # machine's share stretched to 16 minutes of wall time.
    done = subprocess.run([sys.executable, "-m", "companion", "bench", "--json", "--presses", "3",
                           "--writes", "400"], capture_output=True, text=True, timeout=3600,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["press_to_pcm_backend"] == "stream"  # the shipped default, then the others
    assert data["press_to_pcm_simpleaudio_ratio"]["p50"] > 0
    assert set(data) >= {"press_to_pcm_ms", "daemon_rss_mib", "cold_import_ms",
                         "startup_to_ready_ms", "odds_draws_per_s", "bank_write_ms",
                         "bank_load_10k_entries_ms"}
    assert data["bank_write_ms"]["n"] == 300 and data["bank_write_ms"]["p50"] > 0
    held = data["held_press_ms"]  # holding a press the disk refused, against bare pwrite+fsync
    assert held["held"]["n"] == held["floor"]["n"] == 100 and held["held"]["lost"] == 0
    assert held["ratio_p50"] == pytest.approx(held["held"]["p50"] / held["floor"]["p50"],
                                              abs=0.01)
    assert data["bank_load_10k_entries_ms"]["entries"] == 10_000
    words = data["bank_load_10k_entries_ms"]["moves_in_words"]
    assert words["moves"] == 9_997 and words["rows_p50"] > 0  # an opening and 9996 payments
    assert words["ratio_p50"] == pytest.approx(words["moves_p50"] / words["rows_p50"], abs=0.01)
    fanout = data["ws_fanout_ms"]
    assert (fanout["clients"], fanout["events"]) == (10, 200)
    assert 0 < fanout["p50"] <= fanout["p99"] <= fanout["max"]
    readers = data["write_ms_with_journal_readers"]  # banker writes, alone and under load
    assert readers["moves"] == 2000 and readers["alone"]["n"] > 0
    assert readers["4_readers_without_token"]["ratio_p50"] == pytest.approx(
        readers["4_readers_without_token"]["p50"] / readers["alone"]["p50"], abs=0.01)
    pages = data["write_ms_with_32_pages"]
    assert pages["writes_per_s"] == 50 and pages["32_pages"]["n"] > 0
    assert pages["32_pages"]["ratio_p95"] == pytest.approx(
        pages["32_pages"]["p95"] / pages["alone"]["p95"], abs=0.01)
    body = data["json_body_us"]  # the one JSON reader, against bare json.loads of the same bytes
    assert body["board"]["bytes"] > 3000 and body["transfer"]["reader_us"] > 0
    for name in ("transfer", "board"):
        assert body[name]["ratio"] == pytest.approx(
            body[name]["reader_us"] / body[name]["json_loads_us"], rel=0.05)
    assert body["press_given_back_check_us"] > 0
    assert data["startup_to_ready_ms"] > 0
    # ``companion run`` with the screen, the web page and a reader on, in a fresh process:
    # start to /healthz's first answer, and its peak memory once up (issue 18's figures).
    assert data["startup_to_healthz_ms_display"] > 0
    assert data["daemon_rss_mib_display"] > 10
    movie = data["movie_state_read_ms"]  # the Movie's state read against a Celebration game's
    assert movie["presses"] == 3000 and movie["movie_moves"] > 2000
    assert movie["movie"]["n"] == movie["celebration_floor"]["n"] == 200
    assert movie["ratio_p50"] == pytest.approx(
        movie["movie"]["p50"] / movie["celebration_floor"]["p50"], abs=0.01)
    board = data["board_state_read_ms"]  # the piles read with every Gamer state
    assert board["lines"] == 5000 and board["piles"] >= 1
    assert board["board"]["n"] == board["short_board"]["n"] == board["payments_floor"]["n"]
    assert board["growth_p50"] == pytest.approx(
        board["board"]["p50"] / board["short_board"]["p50"], abs=0.01)
    contests = data["contest_state_read_ms"]  # a deck of Boss fights / Races folded per read
    assert contests["moves"]["fights"] > contests["moves"]["fights_floor"] == 3001
    assert contests["moves"]["races"] > contests["moves"]["races_floor"] == 3001
    assert contests["fights"]["n"] == contests["fights_floor"]["n"] == 200
    assert contests["races_ratio_p50"] == pytest.approx(
        contests["races"]["p50"] / contests["races_floor"]["p50"], abs=0.01)
    undo = data["undo_check_ms"]  # the check before Undo of a payment 1000 moves back
    assert (undo["moves"], undo["back"]) == (2000, 1000)
    assert undo["check"]["n"] == undo["floor"]["n"] == 3 and undo["check"]["lost"] == 0
    assert undo["ratio_p50"] == pytest.approx(undo["check"]["p50"] / undo["floor"]["p50"],
                                              abs=0.01)
    tokens = data["token_move_ms"]  # a token's move late in a long Mario Kart game
    assert tokens["turns"] == 2000 and tokens["move"]["n"] == tokens["payment_floor"]["n"] == 3
    assert tokens["ratio_p50"] == pytest.approx(
        tokens["move"]["p50"] / tokens["payment_floor"]["p50"], abs=0.01)
    mqtt = data["press_to_mqtt"]  # pin to MQTT event, against a bare paho publish (mosquitto)
    assert mqtt["press_to_mqtt_ms"]["n"] == mqtt["bare_paho_publish_ms"]["n"] == 3
    assert mqtt["press_to_mqtt_ms"]["lost"] == mqtt["bare_paho_publish_ms"]["lost"] == 0
    assert mqtt["outcome_to_mqtt_ms"]["p50"] <= mqtt["press_to_mqtt_ms"]["p50"]
    assert mqtt["outcome_ratio_p50"] == pytest.approx(
        mqtt["outcome_to_mqtt_ms"]["p50"] / mqtt["bare_paho_publish_ms"]["p50"], abs=0.01)
    flood = data["table_press_in_mqtt_flood"]  # the tablet's press in a PRESS flood, or not
    assert flood["table_press_during_flood_ms"]["n"] == flood["table_press_alone_ms"]["n"] == 3
    assert flood["table_presses_refused"] == {"flood": 0, "quiet": 0}  # the table's block
    assert flood["remote_commands_dropped"] >= flood["remote_commands_heard"] - 4 > 0
    assert flood["ratio_p50"] == pytest.approx(
        flood["table_press_during_flood_ms"]["p50"] / flood["table_press_alone_ms"]["p50"],
        abs=0.01)
    voice = data["voice_after_outcome_ms"]  # espeak-ng is installed by `make test`
    assert voice["available"] and voice["voice"]["lost"] == voice["floor"]["lost"] == 0
    assert voice["voice"]["n"] == voice["floor"]["n"] == 3  # as many rounds as presses
    growth = data["write_cost_growth"]
    assert (growth["writes"], growth["window"], growth["balances_checked"]) == (400, 200, True)
    assert growth["ratio"] == pytest.approx(
        growth["last_1000_p99_ms"] / growth["first_1000_p99_ms"], abs=0.01)
    assert 0 < growth["p50_first"] <= growth["first_1000_p99_ms"]
    page = data["journal_page_bytes"]
    assert page["moves"] == 401 and 0 < page["page_bytes"] < page["whole_bytes"]
    assert data["press_to_pcm_backend"] == "stream"  # the shipped default is the headline
    spread = {"n", "p50", "p90", "p99", "max", "lost", "lag_frames", "lag_agreed"}
    for name in ("", "_simpleaudio"):
        assert set(data[f"press_to_pcm{name}_ms"]) == spread
        assert set(data[f"press_to_pcm{name}_floor_ms"]) == spread
        assert set(data[f"press_to_pcm{name}_ratio"]) == {"p50", "p90", "p99"}
        assert data[f"press_to_pcm{name}_ms"]["lost"] == 0


def test_the_bench_leaves_nothing_in_the_data_folder(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A bench run used to leave a 4-player game in ~/.local/share/companion (the startup
    figure's daemon opened the user's bank), which ``export`` then showed. Every part that
    touches a disk now works in a scratch folder and removes it."""
    from companion.bench import startup_ms
    from companion.bench.bank_io import load_game_ms, moves_vs_sqlite, write_latency_ms
    from companion.bench.board import board_state_ms
    from companion.bench.contests import contest_state_ms
    from companion.bench.held import held_press_ms
    from companion.bench.movie import movie_state_ms
    from companion.bench.tokens import token_move_ms
    from companion.bench.undo_any import undo_check_ms

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    data = tmp_path / ".local" / "share" / "companion"
    assert startup_ms(runs=1) > 0
    assert not data.exists()  # the startup daemon's bank was a scratch one
    write_latency_ms(data, writes=3)
    held_press_ms(data, presses=3)
    moves_vs_sqlite(data, rounds=2)
    load_game_ms(data, entries=50)
    board_state_ms(data, lines=20, reads=2)
    contest_state_ms(data, lines=20, reads=2)
    movie_state_ms(data, presses=20, reads=2)
    undo_check_ms(data, moves=20, back=10, rounds=2)
    token_move_ms(data, turns=20, rounds=2)
    assert list(data.iterdir()) == []  # each left its scratch folder behind it: none
