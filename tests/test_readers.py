"""NFC/RFID readers: the decoders on bytes, then each protocol on a real pty pair through
pyserial (the PN532 emulator answers real command frames), unplug/replug behind a symlink,
and the taps' meaning in the daemon (config and tablet mappings, activity feed)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import aiohttp
import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.bank.store import SCHEMA_VERSION
from companion.cards import CardReader
from companion.config import AudioConfig, Config, DataConfig, GameConfig, ReaderConfig, WebConfig
from companion.core.taps import TapDetector
from companion.daemon import Daemon
from companion.events import CardTapped
from companion.frontends import from_config
from companion.readers.lines import LinesDecoder
from companion.readers.pn532 import (
    ACK,
    NACK,
    AppError,
    Nack,
    Pn532Decoder,
    Reply,
    frame,
    reply_frame,
)
from companion.readers.port import SerialReader
from companion.readers.rdm6300 import Rdm6300Decoder
from companion.web.server import WebFrontend, WebServer
from tests.conftest import ROOT
from tests.reader_emulators import Pn532Emulator, Pty, linked, rdm6300_frame

UIDS5 = st.binary(min_size=5, max_size=5).filter(any).map(lambda b: b.hex().upper())

# -- decoders ---------------------------------------------------------------------------------


def test_rdm6300_reads_valid_frames_and_rejects_the_rest() -> None:
    d = Rdm6300Decoder()
    good = rdm6300_frame("0A1B2C3D4E")
    bad_sum = good[:11] + b"00" + good[13:]
    assert d.feed(b"noise" + good + bad_sum + rdm6300_frame("0000000000") + good[:6]) == [
        "0A1B2C3D4E"]
    assert d.feed(good[6:]) == ["0A1B2C3D4E"]  # a frame split across reads
    assert d.feed(b"\x02" + b"0A1B2C3D4Z" + b"15\x03") == []
    assert d.rejects["bad_checksum"] == 1 and d.rejects["ghost"] == 1
    assert d.rejects["not_hex"] == 1 and d.rejects["noise"] >= 5


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.binary(max_size=40), UIDS5), max_size=8), st.binary(max_size=40))
def test_rdm6300_finds_exactly_the_valid_frames_in_any_garbage(chunks, tail) -> None:
    stream = b"".join(garbage + rdm6300_frame(uid) for garbage, uid in chunks) + tail
    d = Rdm6300Decoder()
    out = []
    for i in range(0, len(stream), 7):  # in small reads, as a serial port delivers them
        out += d.feed(stream[i:i + 7])
    assert out == [uid for _, uid in chunks]


def test_lines_reads_uids_with_or_without_prefix_and_separators() -> None:
    d = LinesDecoder(synced=True)
    data = (b"UID: 04 A2 24 B9\r\n" b"uid:04:a2:24:b9:11:22:33\n" b"\n" b"hello world\n"
            b"04A2\n" + b"F" * 200 + b"\n" + b"\xff\xfe\n" b"0A1B2C3D4E\n"
            b"UID: 4 A2 2 B9\n" b"2024-01-01\n" b"00000000\n")
    assert d.feed(data) == ["04A224B9", "04A224B9112233", "0A1B2C3D4E"]
    assert d.rejects == {"not_a_uid": 5, "overlong": 1, "not_ascii": 1}


def test_lines_never_reads_the_tail_of_a_line() -> None:
    opened_mid_line = LinesDecoder()  # the port opened while "04 A2 24 B9 11 22 33" was sent
    assert opened_mid_line.feed(b"A2 24 B9 11 22 33\r\n04A224B9\n") == ["04A224B9"]
    split = LinesDecoder(synced=True)
    assert split.feed(b"x" * 70) == []
    assert split.feed(b" 04A224B9\n") == []  # the end of an overlong line is not a UID
    assert split.feed(b"04A224B9\n") == ["04A224B9"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.text(st.characters(codec="latin-1", exclude_characters="\n"),
                                  max_size=90).map(lambda t: t + "z"),
                          st.binary(min_size=4, max_size=10).filter(any).map(bytes.hex)),
                max_size=8))
def test_lines_finds_exactly_the_uid_lines(pairs) -> None:
    stream = b"".join(junk.encode("latin-1") + b"\n" + uid.encode() + b"\r\n"
                      for junk, uid in pairs)
    d = LinesDecoder(synced=True)
    out = []
    for i in range(0, len(stream), 5):
        out += d.feed(stream[i:i + 5])
    assert out == [uid.upper() for _, uid in pairs]


def test_lines_flood_without_newlines_stays_bounded() -> None:
    d = LinesDecoder(synced=True)
    for _ in range(1000):
        assert d.feed(b"A" * 1000) == []
    assert len(d.buffer) <= 64 + 1000 and d.rejects["overlong"] == 1
    assert d.feed(b"\n04A224B9\n") == ["04A224B9"]


def test_pn532_frames_match_the_user_manual() -> None:
    # Examples from the NXP PN532 User Manual's HSU section: GetFirmwareVersion and the ACK.
    assert frame(0x02) == bytes.fromhex("0000FF02FED4022A00")
    assert frame(0x14, b"\x01\x14\x01") == bytes.fromhex("0000FF05FBD414011401 0200".replace(
        " ", ""))
    d = Pn532Decoder()
    stream = (b"\x55junk" + ACK + reply_frame(0x03, b"\x32\x01\x06\x07") + NACK
              + bytes.fromhex("0000FF01FF7F8100"))
    items = d.feed(stream)
    assert items[1:] == [Reply(0x03, b"\x32\x01\x06\x07"), Nack(), AppError()]


def test_pn532_decoder_rejects_bad_checksums_and_keeps_going() -> None:
    good = reply_frame(0x4B, b"\x01\x01\x00\x04\x08\x04\xde\xad\xbe\xef")
    bad_dcs = good[:-2] + bytes([good[-2] ^ 1]) + b"\x00"
    bad_lcs = good[:4] + bytes([good[4] ^ 1]) + good[5:]
    d = Pn532Decoder()
    for split in range(1, len(good)):  # any split of a frame across reads
        assert d.feed(good[:split]) + d.feed(good[split:]) == [Reply(0x4B, good[7:-2])]
    assert d.feed(bad_dcs + bad_lcs + good) == [Reply(0x4B, good[7:-2])]
    assert d.rejects["bad_checksum"] == 1 and d.rejects["bad_length"] == 1


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_pn532_decoder_never_crashes_on_noise(noise) -> None:
    d = Pn532Decoder()
    for i in range(0, len(noise), 9):
        d.feed(noise[i:i + 9])
    assert len(d.buffer) <= 4 + 64 + 1  # at most one frame being waited for


def test_tap_detector_one_tap_per_presence() -> None:
    taps = TapDetector(gap=1.0)
    seen = [taps.seen("A", t / 10) for t in range(30)]  # held for 3 s, read 10 times a second
    assert seen.count(True) == 1
    assert taps.seen("A", 5.0) is True  # removed, back after 2 s: a new tap
    assert taps.seen("B", 5.05) is True  # another card
    taps.field_empty()  # the reader says the field is empty
    assert taps.seen("A", 5.1) is True


# -- real ports: each protocol on a pty ---------------------------------------------------------


class Collected:
    def __init__(self) -> None:
        self.uids: list[str] = []
        self.event = threading.Event()

    def __call__(self, uid: str, at: float) -> None:
        self.uids.append(uid)
        self.event.set()

    def wait_for(self, n: int, timeout: float = 5.0) -> list[str]:
        end = time.monotonic() + timeout
        while len(self.uids) < n and time.monotonic() < end:
            time.sleep(0.01)
        return list(self.uids)


def connected(reader: SerialReader, timeout: float = 5.0) -> SerialReader:
    """Wait until the reader has the port open (pyserial drops input that came before)."""
    end = time.monotonic() + timeout
    while not reader.status.connected:
        assert time.monotonic() < end, reader.status.detail
        time.sleep(0.01)
    return reader


@pytest.fixture
def pty():
    made = Pty()
    yield made
    made.close()


def test_rdm6300_on_a_pty_held_cards_tap_once_and_garbage_is_ignored(pty: Pty) -> None:
    got = Collected()
    reader = SerialReader(pty.device, "rdm6300", on_tap=got, tap_gap=0.3)
    reader.start()
    try:
        connected(reader)
        for _ in range(8):  # a card held on the reader: the module repeats its frame
            pty.write(rdm6300_frame("0A1B2C3D4E") + b"\x00\xffgarbage\x02\x0299")
            time.sleep(0.03)
        time.sleep(0.5)  # taken away
        pty.write(b"\x02" + b"1234567890" + b"00\x03")  # a bad checksum
        pty.write(rdm6300_frame("0A1B2C3D4E") + rdm6300_frame("1122334455"))
        assert got.wait_for(3) == ["0A1B2C3D4E", "0A1B2C3D4E", "1122334455"]
        time.sleep(0.2)
        assert got.uids == ["0A1B2C3D4E", "0A1B2C3D4E", "1122334455"]
        assert reader.status.rejects["bad_checksum"] >= 1 and reader.status.connected
    finally:
        reader.stop()


def test_lines_on_a_pty(pty: Pty) -> None:
    got = Collected()
    reader = SerialReader(pty.device, "lines", on_tap=got, tap_gap=0.3)
    reader.start()
    try:
        connected(reader)
        pty.write(b"booting MFRC522...\r\nUID: 04 A2 24 B9\r\n" + os.urandom(300).replace(
            b"\n", b"") + b"\n" + b"uid:DE:AD:BE:EF:01:02:03\r\n")
        assert got.wait_for(2) == ["04A224B9", "DEADBEEF010203"]
    finally:
        reader.stop()


def test_pn532_on_a_pty_answers_real_frames_and_polls_cards(pty: Pty) -> None:
    got = Collected()
    # the field: card A for 4 polls, empty for 3, A again, then B for 2, then empty
    field = ["04A224B9"] * 4 + [None] * 3 + ["04A224B9"] + ["DEADBEEF010203"] * 2 + [None] * 5
    with Pn532Emulator(pty, field, garbage=b"\x55\x12zz\xff\x01") as chip:
        reader = SerialReader(pty.device, "pn532", on_tap=got, tap_gap=5.0)
        reader.start()
        try:
            assert got.wait_for(3) == ["04A224B9", "04A224B9", "DEADBEEF010203"]
            assert chip.commands[:3] == [0x14, 0x02, 0x32]  # SAM, firmware, MaxRetries
            assert 0x4A in chip.commands
            assert reader.status.detail.startswith("connected: PN532 v1.6")
            assert reader.status.rejects["noise"] > 0
        finally:
            reader.stop()


def test_pn532_answers_that_come_late_are_never_taken_for_the_next_poll(pty: Pty) -> None:
    got = Collected()
    # card A, then B: the chip's answer to one poll is swallowed by a noise header that looks
    # like the start of a long frame, so that poll times out
    field = ["AAAAAAAA"] * 3 + ["BBBBBBBB"] * 4 + [None] * 30
    with Pn532Emulator(pty, field, swallow_at=2):
        reader = SerialReader(pty.device, "pn532", on_tap=got, tap_gap=60.0)
        reader.start()
        try:
            assert got.wait_for(2, timeout=10) == ["AAAAAAAA", "BBBBBBBB"]
            time.sleep(1.5)  # the empty field: no stale B (or A) shows up again
            assert got.uids == ["AAAAAAAA", "BBBBBBBB"]
            assert reader.status.rejects["no_answer"] >= 1
        finally:
            reader.stop()


def test_pn532_one_missed_poll_is_not_a_new_tap(pty: Pty) -> None:
    got = Collected()
    field = ["CAFEBABE"] * 3 + [None] + ["CAFEBABE"] * 3 + [None, None] + ["CAFEBABE"]
    with Pn532Emulator(pty, field):
        reader = SerialReader(pty.device, "pn532", on_tap=got, tap_gap=60.0)
        reader.start()
        try:
            assert got.wait_for(2, timeout=8) == ["CAFEBABE", "CAFEBABE"]  # gone for 2 polls
            time.sleep(0.5)
            assert got.uids == ["CAFEBABE", "CAFEBABE"]
        finally:
            reader.stop()


def test_pn532_that_stops_answering_is_woken_again(pty: Pty) -> None:
    got = Collected()
    reader = SerialReader(pty.device, "pn532", on_tap=got)
    reader.start()
    try:
        time.sleep(2.0)  # nobody answers: timeouts, counted, no crash
        assert reader.status.rejects["no_answer"] >= 1
        with Pn532Emulator(pty, ["CAFEBABE"]):
            assert got.wait_for(1, timeout=8) == ["CAFEBABE"]
    finally:
        reader.stop()


def test_unplug_and_replug_behind_the_same_symlink(tmp_path: Path) -> None:
    link = tmp_path / "companion-reader"
    first = Pty()
    got = Collected()
    with linked(first, link):
        reader = SerialReader(str(link), "rdm6300", on_tap=got, tap_gap=0.2)
        reader.start()
    try:
        connected(reader)
        first.write(rdm6300_frame("0A1B2C3D4E"))
        assert got.wait_for(1) == ["0A1B2C3D4E"]
        first.close()  # unplugged: the device vanishes
        link.unlink()
        deadline = time.monotonic() + 3
        while reader.status.connected and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not reader.status.connected and reader.status.disconnects == 1
        second = Pty()  # plugged back in, renumbered: a new device behind the same link
        with linked(second, link):
            replugged = time.monotonic()
            while reader.status.connects < 2 and time.monotonic() - replugged < 2.0:
                time.sleep(0.02)
            assert reader.status.connects == 2, "not back within 2 s"
            connected(reader)
            second.write(rdm6300_frame("1122334455"))
            assert got.wait_for(2) == ["0A1B2C3D4E", "1122334455"]
        second.close()
    finally:
        reader.stop()


def test_a_missing_port_is_waited_for_quietly(tmp_path: Path) -> None:
    reader = SerialReader(str(tmp_path / "nothing"), "lines", on_tap=lambda u, a: None)
    reader.start()
    try:
        time.sleep(0.3)
        assert not reader.status.connected and reader.status.detail.startswith("waiting")
    finally:
        reader.stop()
    assert reader.status.detail == "stopped"


# -- the daemon: what cards mean ------------------------------------------------------------


def _config(tmp_path: Path, port: str, cards: tuple[str, ...] = ()) -> Config:
    return Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=str(tmp_path)),
                  web=WebConfig(host="127.0.0.1", port=0),
                  game=GameConfig(players=("Mario", "Luigi", "Peach")),
                  reader=ReaderConfig(port=port, protocol="lines", tap_gap_ms=200, cards=cards))


def web(app: Daemon) -> WebServer:
    server = next(f for f in app.frontends if isinstance(f, WebFrontend)).server
    assert server is not None
    return server


def cards(app: Daemon) -> CardReader:
    return next(f for f in app.frontends if isinstance(f, CardReader))


async def _until(predicate, timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, "timed out"
        await asyncio.sleep(0.01)


async def test_taps_make_players_current_run_actions_and_fill_the_feed(
        tmp_path: Path, pty: Pty) -> None:
    app = Daemon(_config(tmp_path, pty.device, ("04A224B9 = luigi",
                                                   "0A0B0C0D = action:next_player")),
                    pin_factory=MockFactory())
    runner = asyncio.ensure_future(app.run(from_config(app.config)))
    await app.ready.wait()
    await _until(lambda: cards(app).reader.status.connected)
    taps: list[CardTapped] = []
    app.table.subscribe(lambda e: taps.append(e) if isinstance(e, CardTapped) else None)
    base, auth = web(app).url.rstrip("/"), {"Authorization": f"Bearer {web(app).token}"}

    async def state() -> dict:
        async with session.get(base + "/api/state") as r:
            return await r.json()

    async with aiohttp.ClientSession() as session, session.ws_connect(base + "/ws") as ws:
        await ws.receive_json()  # hello
        pty.write(b"\n04A224B9\n")  # Luigi's sticker (config, name matched without case)
        await _until(lambda: len(taps) == 1)
        assert str(taps[0].did) == "Luigi is current"
        assert [p["name"] for p in (await state())["players"] if p["current"]] == ["Luigi"]
        pushed = [await ws.receive_json() for _ in range(2)]
        assert {m["type"] for m in pushed} == {"state", "activity"}
        pty.write(b"0A0B0C0D\n")  # an action card
        await _until(lambda: len(taps) == 2)
        assert str(taps[1].did) == "next player: Peach"
        pty.write(b"UID: 11 22 33 44 55 66 77\n")  # a new sticker
        await _until(lambda: len(taps) == 3)
        assert taps[2].kind == "unknown"
        async with session.get(base + "/api/activity", headers=auth) as r:  # UIDs: the token
            feed = await r.json()
        assert [a["uid"] for a in feed["activity"]] == ["11223344556677", "0A0B0C0D",
                                                         "04A224B9"]
        assert feed["new_cards"] == ["11223344556677"]
        assert feed["reader"]["connected"] is True and feed["reader"]["protocol"] == "lines"
        mario = (await state())["players"][0]["id"]
        async with session.post(base + "/api/cards", headers=auth,
                                json={"uid": "11223344556677", "player": mario}) as r:
            assert r.status == 200
        async with session.get(base + "/api/activity", headers=auth) as r:
            assert (await r.json())["new_cards"] == []
        await asyncio.sleep(0.25)  # the tap gap: the same card again counts
        pty.write(b"11223344556677\n")
        await _until(lambda: len(taps) == 4)
        assert str(taps[3].did) == "Mario is current"
        async with session.post(base + "/api/cards", headers=auth,
                                json={"uid": "11223344556677", "action": "pass_go"}) as r:
            assert r.status == 200
        await asyncio.sleep(0.25)
        pty.write(b"11223344556677\n")
        await _until(lambda: len(taps) == 5)
        assert str(taps[4].did) == "pass GO"
        assert (await state())["players"][0]["balance"] == 32
    app.request_stop()
    await runner


async def test_bad_card_requests_are_refused_and_change_nothing(tmp_path: Path) -> None:
    app = Daemon(_config(tmp_path, str(tmp_path / "none")), pin_factory=MockFactory())
    runner = asyncio.ensure_future(app.run(from_config(app.config)))
    await app.ready.wait()
    base, auth = web(app).url.rstrip("/"), {"Authorization": f"Bearer {web(app).token}"}
    async with aiohttp.ClientSession() as s:
        async with s.get(base + "/api/state") as r:
            before = await r.json()
        mario = before["players"][0]["id"]
        for body in ({"uid": "04A224B9"}, {"player": mario}, {"uid": None, "player": mario},
                     {"uid": "04A224B9", "player": mario, "action": "undo"},
                     {"uid": "xyz", "player": mario}, {"uid": "04A2", "player": mario},
                     {"uid": "04A224B9", "player": 999}, {"uid": "04A224B9", "action": "fly"},
                     {"uid": 1234, "action": "undo"}, {"uid": "04A224B9", "player": mario,
                                                       "colour": "red"}):
            async with s.post(base + "/api/cards", headers=auth, json=body) as r:
                assert r.status == 400 and "error" in await r.json(), body
        async with s.post(base + "/api/cards", json={"uid": "04A224B9", "player": mario}) as r:
            assert r.status == 401
        async with s.get(base + "/api/state") as r:
            assert await r.json() == before
        async with s.get(base + "/api/activity") as r:
            assert (await r.json())["card_actions"] == {}
    app.request_stop()
    await runner


def test_a_link_made_on_the_tablet_beats_the_config(tmp_path: Path) -> None:
    from companion.bank import Bank

    bank = Bank(tmp_path / "bank.sqlite3")
    bank.new_game("celebration", ["Mario", "Luigi"])
    named = {"04A224B9": "Mario", "0A0B0C0D": "action:undo", "DEADBEEF": "Toad"}
    assert bank.card_meaning("04A224B9", named) == ("player", bank.players()[0].id)
    assert bank.card_meaning("DEADBEEF", named) == ("unmatched", "Toad")
    bank.set_card_action("04A224B9", "next_player")
    assert bank.card_meaning("04A224B9", named) == ("action", "next_player")
    bank.set_card(bank.players()[1].id, "0A0B0C0D")
    assert bank.card_meaning("0A0B0C0D", named) == ("player", bank.players()[1].id)


def test_a_sticker_follows_its_player_into_the_next_game(tmp_path: Path) -> None:
    from companion.bank import Bank

    bank = Bank(tmp_path / "bank.sqlite3")
    bank.new_game("celebration", ["Mario", "Luigi"])
    bank.set_card(bank.players()[1].id, "04:a2:24:b9")
    bank.new_game("gamer", ["Peach", "luigi"])
    assert bank.card_meaning("04A224B9") == ("player", bank.players()[1].id)
    bank.set_card_action("04A224B9", "undo")
    assert bank.card_meaning("04A224B9") == ("action", "undo")
    assert bank.players()[1].card_uid is None


def test_an_old_bank_file_is_upgraded_in_place(tmp_path: Path) -> None:
    import sqlite3

    from companion.bank import Bank

    path = tmp_path / "bank.sqlite3"
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript((ROOT / "tests" / "fixtures" / "bank-schema1.sql").read_text())
    db.execute("PRAGMA user_version=1")
    db.execute("INSERT INTO games (edition, created_at) VALUES ('celebration', 1.0)")
    db.close()
    bank = Bank(path)
    assert bank.latest_game() == 1
    bank.set_card_action("0A1B2C3D", "press")
    assert bank.card_actions() == {"0A1B2C3D": "press"}
    version = sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0]
    assert version == SCHEMA_VERSION == 11


def test_companion_reader_prints_taps_live(pty: Pty) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "companion", "reader", "--port", pty.device,
                             "--protocol", "lines"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert "reading lines cards on" in proc.stdout.readline()
        assert ": connected" in proc.stdout.readline()
        pty.write(b"\ngarbage\nUID: 04 A2 24 B9\n")
        lines = []
        while not any("tap 04A224B9" in line for line in lines):
            lines.append(proc.stdout.readline())
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "1 taps from 1 reads; ignored: not_a_uid 1" in out


def test_a_flood_of_different_cards_stays_bounded() -> None:
    from companion.core.taps import MAX_CARDS

    taps = TapDetector(gap=60.0)
    for i in range(20_000):  # a reader spewing distinct UIDs within the gap
        taps.seen(f"{i:08X}", i * 1e-4)
    assert len(taps._last_seen) <= MAX_CARDS and taps.taps == 20_000


async def test_a_tap_flood_is_dropped_and_counted_not_queued(tmp_path: Path) -> None:
    from companion.cards import MAX_PENDING

    app = Daemon(_config(tmp_path, str(tmp_path / "none")), pin_factory=MockFactory())
    runner = asyncio.ensure_future(app.run(from_config(app.config)))
    await app.ready.wait()
    results = [cards(app).tap(f"{i:08X}") for i in range(1, 200)]
    await asyncio.gather(*results)
    assert cards(app).dropped == 199 - MAX_PENDING
    assert len(app.table.cards.feed) == MAX_PENDING
    app.request_stop()
    await runner
