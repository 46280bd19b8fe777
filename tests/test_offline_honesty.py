"""The network cut during a family's evening (issue 44, items 3 and 7), in headless Chromium
against the real daemon: a payment kept on the banker's page survives a reload while offline, is
shown as kept, and is written once when the companion answers; a player's phone says it is
offline as the banker's page does, marks its coins as the last known, and shows a failed payment
where it stays; and the phone's pay pad has no two keys with the same label doing different
things."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.conftest import ROOT
from tests.test_banker_page import PHONE, TABLET, banker, context, in_view, key, moves, tile
from tests.test_player_phones import Phone, post
from tests.test_pwa import controlled
from tests.test_tablet_browser import daemon, state_of

SHOTS = ROOT / "tests" / "screenshots"
KEPT = "this payment is kept here and sent again (once) when the connection is back"


def paid(base: str, text: str) -> list[dict]:
    """The journal's transfers with these words, read through the API."""
    return [m for m in moves(base) if m["kind"] == "transfer" and m["text"] == text]


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


# -- item 3: a kept payment survives a reload offline -------------------------------------------


@pytest.mark.parametrize("size", [PHONE, TABLET], ids=["phone", "tablet"])
def test_a_payment_kept_offline_survives_a_reload_and_is_written_once(
        browser: Browser, config: Path, size: dict[str, int]) -> None:
    with daemon(config) as base:
        ctx = context(browser, size)
        page = banker(ctx, base)
        controlled(page)  # the shell is kept: the page reloads without the network

        # Mario pays Peach 7 with the network gone: the bar promises it is kept.
        ctx.set_offline(True)
        taps = 0
        for target in (tile(page, "Mario"), tile(page, "Peach"), key(page, "7"),
                       page.locator("#pad-pay")):
            target.tap()
            taps += 1
        assert taps == 4
        expect(page.locator("#error")).to_contain_text(KEPT)
        expect(page.locator("#unsent")).to_contain_text("Mario pays Peach 7")

        # Reloaded while still offline: not live, and the kept payment is said, not lost.
        page.reload()
        expect(page.locator("#link")).to_have_text(
            "reconnecting…" if page.evaluate("navigator.onLine") else "offline: reconnecting…")
        expect(page.locator("#unsent")).to_be_visible()
        expect(page.locator("#unsent")).to_contain_text(
            "Not sent yet, kept on this device: Mario pays Peach 7. "
            "It is sent (once) when the companion answers.")
        # The table as last heard, said to be so (not an empty page).
        expect(page.locator("#last-table")).to_have_text(
            "Not live: the table as this device last heard it.")
        expect(tile(page, "Peach").locator(".coins")).to_have_text("30")
        shot(page, f"{'phone' if size is PHONE else 'tablet'}-offline-reload-kept-payment")
        assert paid(base, "Mario pays Peach 7") == []  # nothing reached the companion

        # The network back: sent by itself, said, and in the journal once.
        ctx.set_offline(False)
        expect(page.locator("#link")).to_have_text("live", timeout=15_000)
        expect(page.locator("#toast-text")).to_contain_text(
            "That payment went through (once): Mario pays Peach 7")
        expect(page.locator("#unsent")).to_be_hidden()
        expect(tile(page, "Peach").locator(".coins")).to_have_text("37")
        expect(page.locator("#last-table")).to_be_hidden()
        assert len(paid(base, "Mario pays Peach 7")) == 1
        assert [p["balance"] for p in state_of(base)["players"]] == [23, 30, 37]

        # Another reload: nothing is kept any more, nothing is sent again.
        page.reload()
        expect(page.locator("#link")).to_have_text("live")
        expect(page.locator("#unsent")).to_be_hidden()
        assert page.evaluate("localStorage.getItem('companion-unsent')") is None
        assert len(paid(base, "Mario pays Peach 7")) == 1
        ctx.close()


def test_a_payment_kept_for_an_earlier_game_is_never_sent_into_a_new_one(
        browser: Browser, config: Path) -> None:
    with daemon(config) as base:
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        controlled(page)
        ctx.set_offline(True)
        for target in (tile(page, "Mario"), tile(page, "Peach"), key(page, "7"),
                       page.locator("#pad-pay")):
            target.tap()
        expect(page.locator("#unsent")).to_contain_text("Mario pays Peach 7")
        page.reload()
        expect(page.locator("#unsent")).to_contain_text("Mario pays Peach 7")
        # Meanwhile another device starts a new game with the same names.
        status, _ = post(base, "api/games", body={"players": ["Mario", "Luigi", "Peach"]})
        assert status == 201
        ctx.set_offline(False)
        expect(page.locator("#link")).to_have_text("live", timeout=15_000)
        expect(page.locator("#error")).to_contain_text(
            "Not sent: Mario pays Peach 7 was for an earlier game.")
        expect(page.locator("#unsent")).to_be_hidden()
        assert [p["balance"] for p in state_of(base)["players"]] == [30, 30, 30]
        assert paid(base, "Mario pays Peach 7") == []
        ctx.close()


# -- item 7: a player's phone is as honest as the banker's page ---------------------------------


def test_a_players_phone_says_offline_marks_its_coins_and_keeps_a_failed_payment_in_view(
        browser: Browser, config: Path) -> None:
    with daemon(config) as base:
        mario, luigi, _peach = (p["id"] for p in state_of(base)["players"])
        phone = Phone(browser, post(base, f"api/players/{mario}/link")[1]["link"])
        page = phone.page
        phone.coins().to_have_text("30")
        expect(page.locator("#me-stale")).to_be_hidden()

        # The network goes: the phone says so (the banker's page's words), and its coins are
        # the last known ones while the Pi's change.
        phone.context.set_offline(True)
        expect(page.locator("#link")).to_have_text("offline: reconnecting…")
        expect(page.locator("#link")).to_have_class("status offline")
        expect(page.locator("#me")).to_have_class("me stale")
        expect(page.locator("#me-stale")).to_be_visible()
        assert post(base, "api/transfers", body={"from": luigi, "to": mario, "amount": 2,
                                                 "correction": True})[0] == 201
        phone.coins().to_have_text("30")  # what it last heard, said to be so
        expect(page.locator("#me-stale")).to_contain_text("may be out of date")

        # A payment with no answer: said in the pad, which stays open with it.
        phone.taps = 0
        phone.tap("#payees .payee:has-text('Luigi')")
        phone.type_digits(7)
        phone.tap("#send")
        failed = page.locator("#pad #pay-failed")
        expect(failed).to_be_visible()
        expect(failed).to_contain_text("this payment may not have gone through")
        expect(page.locator("#toast")).to_be_hidden()
        expect(page.locator("#amount")).to_have_value("7")
        assert in_view(page, failed) and in_view(page, page.locator("#send"))  # no scrolling
        shot(page, "phone-offline-failed-payment")
        assert paid(base, "Mario pays Luigi 7") == []

        # Back: live, the coins the Pi has, and one tap on Pay pays once.
        phone.context.set_offline(False)
        expect(page.locator("#link")).to_have_text("live", timeout=15_000)
        expect(page.locator("#me-stale")).to_be_hidden()
        expect(page.locator("#me")).not_to_have_class("me stale")
        phone.coins().to_have_text("32")
        expect(failed).to_be_visible()  # still said until tried again
        phone.tap("#send")
        expect(page.locator("#pad")).to_be_hidden()
        phone.coins().to_have_text("25")
        assert (phone.taps, phone.digits) == (3, 1)  # Luigi, 7, Pay; Pay again once back
        assert len(paid(base, "Mario pays Luigi 7")) == 1
        phone.context.close()


# -- the phone's pay pad: one meaning per label -------------------------------------------------


def test_the_phones_pay_pad_has_no_two_keys_alike_doing_different_things(
        browser: Browser, config: Path) -> None:
    with daemon(config) as base:
        mario = state_of(base)["players"][0]["id"]
        phone = Phone(browser, post(base, f"api/players/{mario}/link")[1]["link"])
        page = phone.page
        phone.tap("#payees .payee:has-text('Bank')")
        expect(page.locator("#quick .key").first).to_be_visible()
        digits = page.locator("#keys .key").all_inner_texts()
        quick = page.locator("#quick .key").all_inner_texts()
        assert not set(digits) & set(quick), (digits, quick)  # no label on both rows
        expect(page.locator("#quick-words")).to_have_text("One tap sets the whole amount:")
        assert [int(q) for q in quick if q.isdigit()] == [10, 15, 20]
        assert any(q.startswith("Jail") for q in quick) and any(q.startswith("GO") for q in quick)
        labels = page.locator("#quick .key").evaluate_all(
            "(keys) => keys.map((k) => k.getAttribute('aria-label'))")
        assert labels[0] == "10 coins" and all(label.endswith("coins") for label in labels)
        shot(page, "player-phone-pay-pad")

        # 5 coins: the digit, from empty, is the amount (2 taps then Pay); 15 is one quick tap.
        phone.taps = 0
        phone.tap("#keys .key:text-is('5')")
        expect(page.locator("#send")).to_have_text("Pay 5")
        phone.tap("#quick .key:text-is('15')")
        expect(page.locator("#send")).to_have_text("Pay 15")
        phone.tap("#send")
        phone.coins().to_have_text("15")
        assert phone.taps == 3
        assert len(paid(base, "Mario pays the Bank 15")) == 1
        phone.context.close()
