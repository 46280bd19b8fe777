"""One tap must not claim anyone's seat (issue 44, item 10): joining from the table's code
asks "Is this you?" with the player's colour and name ("No" takes no seat), the banker's page
says whose phone joined and turns it off in one tap, a phone turned off is told to scan the
code again (and the server refuses what it still tries), and the "phone is linked" question
has a Cancel. The real daemon from a config file, a phone (390x844, touch) and the banker
(1024x768) in two contexts of Debian's Chromium."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from companion.i18n import translator
from tests.test_banker_page import PHONE, TABLET, banker, context, dialog_settled, tile
from tests.test_join import SHOTS, bankers, choices, four, phone  # noqa: F401 (a fixture)
from tests.test_player_phones import post, table_of
from tests.test_pwa import audit, serious
from tests.test_tablet_browser import daemon

RED = "rgb(229, 37, 33)"  # Mario's seat colour, #e52521 (companion.core.ledger.COLOURS)
SCAN_AGAIN = "To join again, scan the table's join code"


def state(base: str) -> dict[str, Any]:
    with urllib.request.urlopen(base + "api/state", timeout=10) as reply:
        return json.loads(reply.read())


def linked(base: str) -> list[bool]:
    return [p["linked"] for p in state(base)["players"]]


def pay_with(page: Page, payer: int, payee: int | str, amount: int) -> list[Any]:
    """A payment sent with the phone's stored link, as its page sends one: status, its
    Content-Type and body."""
    payee = json.dumps(payee)
    return page.evaluate(f"""async () => {{
        const r = await fetch("/api/transfers", {{method: "POST", headers: {{
            "Authorization": "Bearer " + localStorage.getItem("companion-player-token"),
            "Content-Type": "application/json"}},
            body: JSON.stringify({{from: {payer}, to: {payee}, amount: {amount}}})}});
        return [r.status, r.headers.get("Content-Type"), await r.json()]; }}""")


def test_joining_asks_is_this_you_and_no_takes_no_seat(
        browser: Browser, four: Path) -> None:  # noqa: F811 (the fixture)
    SHOTS.mkdir(parents=True, exist_ok=True)
    with daemon(four) as base:
        before = table_of(state(base))
        dev = phone(browser, bankers(base, "api/join")["url"])
        choices(dev).to_have_text(["Mario", "Luigi", "Peach", "Yoshi"])

        # Tap 1: Mario's name asks first, in his colour; nothing is taken yet.
        dev.locator("#choices .choice", has_text="Mario").tap()
        sure = dev.locator("#sure")
        expect(sure).to_be_visible()
        expect(dev.locator("#sure-title")).to_have_text("Is this you?")
        expect(dev.locator("#sure-title")).to_be_focused()
        expect(dev.locator("#sure-name")).to_have_text("Mario")
        expect(dev.locator("#sure-colour")).to_have_text("red")
        expect(dev.locator("#sure-who")).to_have_css("border-top-color", RED)
        expect(dev.locator("#sure-yes")).to_have_text("Yes, I am Mario")
        expect(dev.locator("#sure-why")).to_contain_text("This phone will pay from Mario's coins")
        expect(dev.locator("#list")).to_be_hidden()
        for button in ("#sure-no", "#sure-yes"):  # big targets, inside the screen
            box = dev.locator(button).bounding_box()
            assert box and box["height"] >= 56 and box["y"] + box["height"] <= PHONE["height"]
        expect(dev.locator("#sure-yes")).to_be_enabled()  # (armed: a double tap can't take it)
        dev.screenshot(path=str(SHOTS / "phone-join-is-this-you.png"))
        assert not serious(audit(dev))  # axe-core: nothing serious or critical
        assert linked(base) == [False] * 4

        # "No": the list again, Mario still offered, no seat taken, nothing changed.
        dev.locator("#sure-no").tap()
        expect(sure).to_be_hidden()
        choices(dev).to_have_text(["Mario", "Luigi", "Peach", "Yoshi"])
        expect(dev.locator("#choices .choice", has_text="Mario")).to_be_focused()
        assert linked(base) == [False] * 4
        assert [p["name"] for p in bankers(base, "api/join")["players_without_phone"]] == [
            "Mario", "Luigi", "Peach", "Yoshi"]
        assert table_of(state(base)) == before
        assert dev.evaluate("localStorage.getItem('companion-player-token')") is None
        assert dev.url.startswith(f"{base}join")

        # His own name, then Yes: two taps, and the phone is Yoshi's.
        dev.locator("#choices .choice", has_text="Yoshi").tap()
        expect(dev.locator("#sure-name")).to_have_text("Yoshi")
        expect(dev.locator("#sure-colour")).to_have_text("blue")
        dev.locator("#sure-yes").tap()
        expect(dev).to_have_url(re.compile(r"/p$"))
        expect(dev.locator("#title")).to_have_text("Yoshi")
        assert linked(base) == [False, False, False, True]
        dev.context.close()

        # A German browser asks in German, the colour named too.
        de = translator("de")
        german = context(browser, PHONE, locale="de-DE").new_page()
        german.goto(bankers(base, "api/join")["url"])
        german.locator("#choices .choice", has_text="Luigi").tap()
        expect(german.locator("#sure-title")).to_have_text(de.gettext("Is this you?"))
        expect(german.locator("#sure-colour")).to_have_text(de.gettext("green"))
        expect(german.locator("#sure-yes")).to_have_text(
            de.gettext("Yes, I am {name}").format(name="Luigi"))
        expect(german.locator("#sure-yes")).to_be_enabled()  # (armed: drawn as it stays)
        german.screenshot(path=str(SHOTS / "phone-join-is-this-you-de.png"))
        german.context.close()


@pytest.mark.parametrize(("label", "size"), [("tablet", TABLET), ("phone", PHONE)])
def test_the_banker_sees_a_join_and_turns_that_phone_off_in_one_tap(
        browser: Browser, four: Path,  # noqa: F811 (the fixture)
        label: str, size: dict[str, int]) -> None:
    """The banker at 1024x768 (and on a phone, 390x844 touch, as many bankers are)."""
    with daemon(four) as base:
        players = state(base)["players"]
        mario, luigi = players[0]["id"], players[1]["id"]
        desk = context(browser, size)
        bank = banker(desk, base)
        # A phone the banker links from the page is the banker's doing: no notice for it.
        assert post(base, f"api/players/{players[2]['id']}/link")[0] == 201
        expect(bank.locator(".tile", has_text="Peach").locator(".phone")).to_be_visible()
        expect(bank.locator("#joined")).to_be_hidden()

        # Dev's phone takes Mario's seat (a wrong name, and a Yes).
        dev = phone(browser, bankers(base, "api/join")["url"])
        dev.locator("#choices .choice", has_text="Mario").tap()
        dev.locator("#sure-yes").tap()
        expect(dev.locator("#title")).to_have_text("Mario")
        expect(dev.locator("#link")).to_have_text("live")

        # The banker's page says so at the top, in Mario's colour.
        notice = bank.locator("#joined .joined-row")
        expect(notice).to_have_count(1)
        expect(notice).to_contain_text("Mario's phone joined")
        expect(notice).to_have_css("border-inline-start-color", RED)
        expect(bank.locator("#announce")).to_have_attribute("data-said", "Mario's phone joined")
        box = notice.bounding_box()
        assert box and box["y"] + box["height"] <= size["height"]  # in sight, at the top
        expect(notice.locator(".joined-off")).to_be_enabled()
        bank.screenshot(path=str(SHOTS / f"{label}-phone-joined.png"))
        found = serious(audit(bank))
        assert not found, found

        # One tap: Mario's phone is off; the notice goes; the phone says to scan again.
        before = table_of(state(base))
        notice.locator(".joined-off").tap()
        expect(bank.locator("#joined")).to_be_hidden()
        expect(bank.locator(".tile", has_text="Mario").locator(".phone")).to_have_count(0)
        assert linked(base) == [False, False, True, False]
        off = dev.locator("#off")
        expect(off).to_contain_text("This link was turned off by the banker")
        expect(off).to_contain_text(SCAN_AGAIN)
        expect(dev.locator("#main")).to_be_hidden()
        expect(dev.locator("#link")).to_have_text("off")
        if label == "tablet":
            dev.screenshot(path=str(SHOTS / "phone-player-turned-off.png"))
            assert not serious(audit(dev))

        # What it still tries is refused by the server (401, JSON, in words), nothing changes.
        for payee in (luigi, "bank"):
            status, kind, body = pay_with(dev, mario, payee, 5)
            assert status == 401 and kind.startswith("application/json"), (status, kind)
            assert body["error"] and body["error_said"], body
        status, _kind, body = pay_with(dev, luigi, mario, 5)  # anybody else's: as refused
        assert status == 401 and body["error"]
        assert table_of(state(base)) == before
        dev.reload()  # and so it stays
        expect(dev.locator("#off")).to_contain_text(SCAN_AGAIN)

        # Scanning the code again: Mario is offered again; Luigi is this phone's own.
        dev.goto(bankers(base, "api/join")["url"])
        choices(dev).to_have_text(["Mario", "Luigi", "Yoshi"])
        dev.context.close()
        desk.close()


@pytest.mark.parametrize(("label", "size"), [("phone", PHONE), ("tablet", TABLET)])
def test_the_linked_dialogs_cancel_closes_it_with_nothing_changed(
        browser: Browser, four: Path,  # noqa: F811 (the fixture)
        label: str, size: dict[str, int]) -> None:
    with daemon(four) as base:
        luigi = state(base)["players"][1]["id"]
        status, made = post(base, f"api/players/{luigi}/link")
        assert status == 201
        ctx = context(browser, size)
        page = banker(ctx, base)
        before = table_of(state(base))
        tile(page, "Luigi").tap()
        expect(page.locator("#pad-phone")).to_have_text("Phone: linked")
        page.locator("#pad-phone").tap()
        dialog = page.locator("#dialog")
        expect(dialog).to_contain_text("Luigi's phone is linked")
        dialog_settled(page)
        cancel = dialog.locator("button", has_text="Cancel")
        expect(cancel).to_be_visible()
        page.screenshot(path=str(SHOTS / f"{label}-phone-linked-cancel.png"))
        cancel.tap()
        expect(dialog).to_be_hidden()
        # Nothing changed: Luigi's phone link is the one it was, and still works.
        assert linked(base) == [False, True, False, False]
        me = urllib.request.Request(base + "api/players/me",
                                    headers={"Authorization": f"Bearer {made['token']}"})
        with urllib.request.urlopen(me, timeout=10) as reply:
            assert json.loads(reply.read())["player"] == luigi
        assert table_of(state(base)) == before
        expect(page.locator(".tile", has_text="Luigi").locator(".phone")).to_be_visible()
        ctx.close()
