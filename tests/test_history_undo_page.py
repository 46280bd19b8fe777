"""The family's evening on the banker's page, in headless Chromium against the real daemon: any
move undone from the history (the journal append-only: a compensating move), a move that a later
one depends on says what in the server's own words; a player's "that was a mistake" from their
phone, undone (or kept) by the banker in one tap; and a page that never says "live" while its
writes get no answer, and clears its red bar by itself when the connection is back."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Locator, Page, Route, expect

from tests.conftest import ROOT
from tests.test_banker_page import (
    PHONE,
    TABLET,
    bank_tile,
    banker,
    context,
    in_view,
    key,
    kinds,
    moves,
    tile,
)
from tests.test_player_phones import post
from tests.test_pwa import audit_in_every_mode, axe_source, until
from tests.test_tablet_browser import TOKEN, api, daemon, state_of

SHOTS = ROOT / "tests" / "screenshots"
UNDONE = re.compile(r"\bundone\b")
KEPT = "this payment is kept here and sent again (once) when the connection is back"


def coins(base: str) -> list[int]:
    return [p["balance"] for p in state_of(base)["players"]]


def line(page: Page, move: int) -> Locator:
    """A move's line in the banker's history."""
    return page.locator(f"#history li[data-move='{move}']")


def undo_line(page: Page, text: str) -> Locator:
    """The button that is a move's line in the banker's history, by its name."""
    return page.locator("#history").get_by_role("button", name=f"Undo: {text}", exact=True)


def can_undo(base: str, move: int) -> dict[str, Any]:
    request = urllib.request.Request(f"{base}api/moves/{move}/undo",
                                     headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())  # type: ignore[no-any-return]


def pay(base: str, payer: object, payee: object, amount: int, token: str = TOKEN) -> int:
    status, paid = post(base, "api/transfers", token,
                        body={"from": payer, "to": payee, "amount": amount})
    assert status == 201, paid
    return int(paid["move"])


def latest_move(base: str) -> dict[str, Any]:
    return max(moves(base), key=lambda m: m["id"])


def tall_enough(target: Locator) -> None:
    box = target.bounding_box()
    assert box is not None and box["height"] >= 44 and box["width"] >= 44, box


# -- any move, from the history ----------------------------------------------------------------


def test_a_move_three_moves_back_is_undone_from_the_history_on_a_phone(
        browser: Browser, config: Path) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    with daemon(config) as base:
        mario, luigi, peach = (p["id"] for p in state_of(base)["players"])
        mistake = pay(base, mario, luigi, 5)
        later = [pay(base, peach, "bank", 3), pay(base, luigi, peach, 2),
                 pay(base, mario, peach, 1)]
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        older = line(page, mistake)
        expect(older).to_contain_text("Mario pays Luigi 5")
        button = undo_line(page, "Mario pays Luigi 5")
        expect(button).to_have_count(1)
        lines = page.locator("#history li[data-move] button.line")
        expect(lines).to_have_count(4)  # not the opening
        button.scroll_into_view_if_needed()
        tall_enough(button)
        expect(page.locator("#undo-what")).to_have_text("Mario pays Peach 1")  # Undo: the latest

        # A tap asks first, in the page's dialog; Cancel changes nothing.
        button.tap()
        expect(page.locator("#dialog")).to_have_attribute("data-name", "undo-move")
        expect(page.locator("#dialog-title")).to_have_text('Undo "Mario pays Luigi 5"?')
        page.wait_for_timeout(700)  # the dialog's buttons take taps
        page.screenshot(path=str(SHOTS / "phone-undo-older-move.png"))
        page.locator("#dialog-buttons button", has_text="Cancel").tap()
        expect(page.locator("#dialog")).not_to_be_visible()
        assert coins(base) == [24, 33, 30] and not kinds(base, "undo")

        button.tap()
        page.wait_for_timeout(700)
        page.locator("#dialog-buttons button", has_text="Undo").tap()
        expect(page.locator("#toast-text")).to_have_text("Undone: Mario pays Luigi 5")
        expect(older).to_have_class(UNDONE)  # struck through, no longer a button
        expect(older.locator("button")).to_have_count(0)
        for move in later:  # the later moves stand, each still undoable from its line
            expect(line(page, move)).not_to_have_class(UNDONE)
            expect(line(page, move).locator("button.line")).to_have_count(1)
        assert coins(base) == [29, 28, 30]  # as if Mario had never paid Luigi 5
        undos = kinds(base, "undo")
        assert [u["undoes"] for u in undos] == [mistake]
        assert {m["id"] for m in kinds(base, "transfer")} == {mistake, *later}  # appended only
        expect(page.locator("#history li").first).to_contain_text("Undo: Mario pays Luigi 5")

        # The Undo button still takes the latest move.
        expect(page.locator("#undo-what")).to_have_text("Mario pays Peach 1")
        page.wait_for_timeout(700)
        page.locator("#undo").tap()
        expect(page.locator("#toast-text")).to_have_text("Undone: Mario pays Peach 1")
        expect(line(page, later[-1])).to_have_class(UNDONE)
        assert coins(base) == [30, 28, 29]
        ctx.close()

        # A page that only watches shows the history, and no line to undo.
        ctx = context(browser, PHONE)
        page = ctx.new_page()
        page.goto(base)
        expect(page.locator("#role")).to_have_text("Watching")
        expect(line(page, mistake)).to_have_class(UNDONE)
        expect(page.locator("#history li[data-move]")).not_to_have_count(0)
        expect(page.locator("#history button.line")).to_have_count(0)
        ctx.close()


def test_a_move_a_later_one_depends_on_says_what_and_changes_nothing(
        browser: Browser, config: Path) -> None:
    axe_source()
    with daemon(config) as base:
        mario, luigi, peach = (p["id"] for p in state_of(base)["players"])
        api(base, "/api/next", {"from": mario})
        first = latest_move(base)
        api(base, "/api/next", {"from": luigi})
        second = latest_move(base)
        before = (state_of(base), len(moves(base)))
        check = can_undo(base, first["id"])
        assert check["undoable"] is False and check["blocked_by"] == [second["id"]]
        ctx = context(browser, TABLET, touch=False)
        page = banker(ctx, base)
        undo_line(page, first["text"]).click()
        expect(page.locator("#dialog")).to_have_attribute("data-name", "undo-blocked")
        expect(page.locator("#dialog-title")).to_have_text(f'Can\'t undo "{first["text"]}"')
        words = check["error"][0].upper() + check["error"][1:]  # the server's own sentence
        expect(page.locator("#dialog-body")).to_have_text(words)
        assert "whose turn it is" in words and second["text"] in words
        audit_in_every_mode(page, "the undo dialog: can't undo")
        page.wait_for_timeout(700)
        page.locator("#dialog-buttons button", has_text="Show it in the history").click()
        expect(page.locator("#dialog")).not_to_be_visible()
        waited = line(page, second["id"])
        expect(waited).to_have_class(re.compile(r"\bwaited\b"))
        expect(waited.locator("button.line")).to_be_focused()
        assert (state_of(base), len(moves(base))) == before  # nothing changed

        # Asked while it could be undone; a later move made meanwhile: the server's words.
        api(base, "/api/undo", {"move": second["id"]})
        expect(line(page, second["id"])).to_have_class(UNDONE)
        undo_line(page, first["text"]).click()
        expect(page.locator("#dialog-title")).to_have_text(f'Undo "{first["text"]}"?')
        audit_in_every_mode(page, "the undo dialog")
        api(base, "/api/next", {"from": luigi})  # another device passes the turn meanwhile
        third = latest_move(base)
        page.wait_for_timeout(700)
        page.locator("#dialog-buttons button", has_text="Undo").click()
        expect(page.locator("#dialog-title")).to_have_text(f'Can\'t undo "{first["text"]}"')
        expect(page.locator("#dialog-body")).to_contain_text(third["text"])
        expect(page.locator("#error")).to_be_hidden()  # said in the dialog, not twice
        assert state_of(base)["current_player"] == peach  # the turns stand
        assert [m["undoes"] for m in kinds(base, "undo")] == [second["id"]]
        page.locator("#dialog-buttons button", has_text="OK").click()
        ctx.close()


# -- "that was a mistake", from a player's phone --------------------------------------------------


def phone_of(browser: Browser, link: str) -> tuple[BrowserContext, Page]:
    ctx = context(browser, PHONE)
    page = ctx.new_page()
    page.goto(link)
    expect(page.locator("#link")).to_have_text("live")
    return ctx, page


def phone_pays(page: Page, name: str, digits: str) -> Locator:
    """The phone pays ``name``; its newest history line (wherever it goes later)."""
    page.locator(f"#payees .payee:has-text('{name}')").tap()
    for digit in digits:
        page.locator("#keys .digit", has_text=digit).first.tap()
    page.locator("#send").tap()
    expect(page.locator("#pad")).to_be_hidden()
    first = page.locator("#history li").first
    expect(first.locator("button.mistake")).to_be_visible()
    return page.locator(f"#history li[data-key='{first.get_attribute('data-key')}']")


def test_a_players_mistaken_payment_is_undone_from_their_phone_through_the_banker(
        browser: Browser, config: Path) -> None:
    axe_source()
    SHOTS.mkdir(parents=True, exist_ok=True)
    with daemon(config) as base:
        mario = state_of(base)["players"][0]["id"]
        made = post(base, f"api/players/{mario}/link")[1]
        phone_ctx, phone = phone_of(browser, made["link"])
        bank_ctx = context(browser, TABLET, touch=False)
        bank = banker(bank_ctx, base)
        expect(bank.locator("#requests")).to_be_hidden()

        # Mario pays Luigi 15 from his phone, then says it was a mistake.
        paid = phone_pays(phone, "Luigi", "15")
        expect(phone.locator("#me-coins")).to_have_text("15")
        paid.locator("button.mistake").tap()
        expect(paid.locator(".asked")).to_have_text("Waiting for the banker…")

        # The banker's page: at the top, whatever is scrolled, and said to a screen reader.
        words = "Mario says this was a mistake: Mario pays Luigi 15"
        request = bank.locator("#requests .request")
        expect(request).to_have_count(1)
        expect(request.locator(".request-what")).to_have_text(words)
        expect(bank.locator("#announce")).to_have_attribute("data-said", words)
        bank.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        bank.wait_for_timeout(300)
        undo_it = request.get_by_role("button", name="Undo it")
        keep_it = request.get_by_role("button", name="Keep it")
        assert in_view(bank, undo_it) and in_view(bank, keep_it)
        tall_enough(undo_it)
        tall_enough(keep_it)
        bank.evaluate("window.scrollTo(0, 0)")
        bank.wait_for_timeout(300)
        bank.screenshot(path=str(SHOTS / "tablet-mistake-request.png"))
        audit_in_every_mode(bank, "an open mistake request")

        # One tap: undone; the request goes; the phone's coins are back and it says so.
        undo_it.click()
        expect(bank.locator("#toast-text")).to_have_text("Undone: Mario pays Luigi 15")
        expect(bank.locator("#requests")).to_be_hidden()
        assert coins(base)[:2] == [30, 30] and state_of(base)["requests"] == []
        undone = paid_move(base, "Mario pays Luigi 15")
        assert [u["undoes"] for u in kinds(base, "undo")] == [undone]
        expect(phone.locator("#me-coins")).to_have_text("30")
        expect(paid.locator(".asked")).to_have_text("The banker undid it")
        expect(phone.locator("#toast")).to_contain_text("The banker undid it: Mario pays Luigi 15")

        # Another mistake; the banker keeps this one: the payment stands, the request goes.
        kept = phone_pays(phone, "Bank", "3")
        kept.locator("button.mistake").tap()
        expect(request).to_have_count(1)
        expect(request.locator(".request-what")).to_have_text(
            "Mario says this was a mistake: Mario pays the Bank 3")
        request.get_by_role("button", name="Keep it").click()
        expect(bank.locator("#toast-text")).to_have_text("Kept: Mario pays the Bank 3")
        expect(bank.locator("#requests")).to_be_hidden()
        expect(kept.locator(".asked")).to_have_text("The banker kept it")
        assert coins(base)[0] == 27 and state_of(base)["requests"] == []
        assert len(kinds(base, "undo")) == 1
        phone_ctx.close()
        bank_ctx.close()


def paid_move(base: str, text: str) -> int:
    return next(m["id"] for m in moves(base) if m["text"] == text and m["kind"] == "transfer")


# -- an honest connection ------------------------------------------------------------------------


def luigi_pays_the_bank(page: Page, digit: str) -> None:
    tile(page, "Luigi").click()
    bank_tile(page).click()
    key(page, digit).click()
    page.locator("#pad-pay").click()


def test_offline_the_header_says_so_at_a_payment_and_back_online_it_goes_through_once(
        browser: Browser, config: Path) -> None:
    with daemon(config) as base:
        mario, _luigi, peach = (p["id"] for p in state_of(base)["players"])
        pay(base, mario, peach, 2)
        ctx = context(browser, PHONE)
        page = banker(ctx, base)

        # Offline, a tap on a move to undo: not live, and nothing asked without the server.
        ctx.set_offline(True)
        undo_line(page, "Mario pays Peach 2").tap()
        expect(page.locator("#link")).not_to_have_text("live")
        expect(page.locator("#error")).to_be_visible()
        expect(page.locator("#error")).to_contain_text("The companion is not reachable")
        expect(page.locator("#dialog")).not_to_be_visible()
        ctx.set_offline(False)  # back: the bar about the connection goes by itself
        expect(page.locator("#link")).to_have_text("live", timeout=15_000)
        expect(page.locator("#error")).to_be_hidden()

        # Offline, a payment: kept, and sent once when the connection is back.
        ctx.set_offline(True)
        luigi_pays_the_bank(page, "4")
        expect(page.locator("#link")).not_to_have_text("live")
        expect(page.locator("#link")).to_have_class("status offline")
        expect(page.locator("#error")).to_be_visible()
        expect(page.locator("#error")).to_contain_text(KEPT)
        ctx.set_offline(False)
        expect(page.locator("#link")).to_have_text("live", timeout=15_000)
        expect(page.locator("#error")).to_be_hidden()
        expect(page.locator("#toast-text")).to_contain_text("That payment went through (once)")
        expect(tile(page, "Luigi").locator(".coins")).to_have_text("26")
        page.wait_for_timeout(800)
        assert len(kinds(base, "transfer")) == 2 and coins(base)[1] == 26  # and Mario's
        ctx.close()


def test_a_write_with_no_answer_says_not_live_reconnects_and_clears_only_its_own_error(
        browser: Browser, config: Path) -> None:
    with daemon(config) as base:
        ctx = browser.new_context(viewport=TABLET, service_workers="block")
        page = banker(ctx, base)

        # An error about something else stays when the connection comes back.
        page.evaluate("write('refused', '/api/transfers', {from: 999, to: 'bank', amount: 1})"
                      ".catch(() => {})")
        expect(page.locator("#error")).to_contain_text("999")
        page.evaluate("window.__first = socket; socket.close()")
        until(page, "socket !== window.__first")
        expect(page.locator("#link")).to_have_text("live")  # the new socket's fresh state
        expect(page.locator("#error")).to_be_visible()
        expect(page.locator("#error")).to_contain_text("999")
        page.locator("#error-close").click()
        expect(page.locator("#error")).to_be_hidden()

        # Payments get no answer while the socket stays open: not live at once, and reconnects.
        tries: list[str] = []

        def lost(route: Route) -> None:
            tries.append(route.request.headers.get("idempotency-key", ""))
            route.abort("connectionreset")

        page.evaluate("window.__open = socket")
        page.route("**/api/transfers", lost)
        luigi_pays_the_bank(page, "3")
        expect(page.locator("#link")).not_to_have_text("live", timeout=400)
        expect(page.locator("#error")).to_be_visible()
        expect(page.locator("#error")).to_contain_text(KEPT)
        until(page, "socket !== window.__open")  # the old socket let go
        expect(page.locator("#pad-pay")).to_be_visible()

        # Answers again: live, the bar about the connection gone, the payment through once.
        page.unroute("**/api/transfers")
        expect(page.locator("#toast-text")).to_contain_text("That payment went through (once)",
                                                            timeout=15_000)
        expect(page.locator("#link")).to_have_text("live")
        expect(page.locator("#error")).to_be_hidden()
        page.wait_for_timeout(800)
        assert len(kinds(base, "transfer")) == 1 and coins(base)[1] == 27
        assert len(set(tries)) == 1, tries  # every try the same intent
        ctx.close()


def test_a_write_that_hangs_is_no_answer_after_ten_seconds(browser: Browser,
                                                           config: Path) -> None:
    with daemon(config) as base:
        ctx = browser.new_context(viewport=TABLET, service_workers="block")
        page = banker(ctx, base)
        held: list[Route] = []
        page.route("**/api/transfers", lambda route: held.append(route))  # never answered
        luigi_pays_the_bank(page, "2")
        page.wait_for_timeout(8000)
        assert len(held) == 1
        expect(page.locator("#link")).to_have_text("live")  # still waiting for its answer
        expect(page.locator("#link")).not_to_have_text("live", timeout=4000)  # 10 s: none
        expect(page.locator("#error")).to_be_visible()
        expect(page.locator("#error")).to_contain_text(KEPT)
        page.unroute("**/api/transfers")
        expect(page.locator("#toast-text")).to_contain_text("That payment went through (once)",
                                                            timeout=15_000)
        expect(page.locator("#link")).to_have_text("live")
        expect(page.locator("#error")).to_be_hidden()
        page.wait_for_timeout(500)
        assert len(kinds(base, "transfer")) == 1 and coins(base)[1] == 28
        ctx.close()
