"""Who may act, and when, on the banker's page (headless Chromium against the real daemon, a
phone at 390x844): a move out of its moment in the turn is marked "not now" with the reason,
still tappable; the server's refusal (409) is asked about in the page's own dialog with the
rulebook's lines, and "Record it as a correction" makes it all the same (the history marks it);
Cancel changes nothing. The bankruptcy's creditor comes from the state (``owes_to``), however
many journal lines came since; and a payer short of coins who holds Property sells deeds back
to the Bank in the pay confirmation."""

from __future__ import annotations

import json
import re
import urllib.error
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.conftest import ROOT
from tests.test_banker_page import (
    PHONE,
    READABILITY,
    banker,
    context,
    dialog_settled,
    moves,
    no_overflow,
    tile,
)
from tests.test_board_page import table_config
from tests.test_board_ring import gamer_board
from tests.test_ring_page import put
from tests.test_tablet_browser import ARTIFACTS, api, api_state, daemon, state_of

SHOTS = ROOT / "tests" / "screenshots"
JAIL_LINE = "Pay 5 coins at the start of your next turn, then roll and move as normal."


def shot(page: Page, name: str, *, readme: bool = True) -> None:
    """A picture for the README (tests/screenshots/) and the run's artifacts (``readme``
    False: the artifacts only)."""
    page.wait_for_timeout(400)  # the dialog's buttons arm, animations settle
    for folder in (SHOTS, ARTIFACTS) if readme else (ARTIFACTS,):
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"{name}.png"))


def refused(base: str, path: str, body: object) -> dict[str, Any]:
    """The JSON of a write the server refuses (the test expects a refusal)."""
    try:
        api(base, path, body)
    except urllib.error.HTTPError as err:
        return {"status": err.code, **json.loads(err.read())}
    raise AssertionError(f"{path} {body} was not refused")


def readable(page: Page) -> None:
    no_overflow(page, PHONE["width"])
    found = page.evaluate(READABILITY)
    assert found == {"small": [], "low": [], "inputs": []}, found


# -- a move out of its moment: marked, asked about, made as a correction --------------------------


def test_a_jail_fee_out_of_its_moment_is_marked_asked_and_made_as_a_correction(
        browser: Browser, config: Path) -> None:
    with daemon(config) as base:
        mario, luigi, _peach = api_state(base)
        # Luigi is sent to Jail while it is Mario's turn: the banker's correction (the API).
        assert refused(base, "/api/jail", {"player": luigi, "in_jail": True})["status"] == 409
        api(base, "/api/jail", {"player": luigi, "in_jail": True, "correction": True})
        assert state_of(base)["players"][1]["in_jail"]
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        # The history marks the correction made through the API.
        first = page.locator("#history li.correction")
        expect(first).to_have_count(1)
        expect(first.locator(".correction-tag")).to_have_text("correction")
        expect(first).to_contain_text("Correction: Luigi goes to Jail")
        # Luigi's pad: the fee to leave Jail is Luigi's only on his own turn: "not now".
        tile(page, "Luigi").tap()
        fee = page.locator("#pad-jail-pay")
        expect(fee).to_be_visible()
        expect(fee).to_have_class(re.compile(r"\bnot-now\b"))
        reason = "It is Mario's turn: Luigi may do this only on their own turn"
        expect(fee).to_have_attribute("aria-description", reason)
        expect(fee).to_have_attribute("title", reason)
        expect(fee).to_be_enabled()  # still tappable: the server says why, the banker decides
        tag = page.evaluate("getComputedStyle(document.getElementById('pad-jail-pay'), '::after')"
                            ".content")
        assert tag == '"not now"', tag
        # Leaving free (a card) is also his only at the start of his own turn.
        expect(page.locator("#pad-jail-free")).to_have_class(re.compile(r"\bnot-now\b"))
        readable(page)
        shot(page, "phone-flow-not-now-pad")
        # Tapped: the page's own dialog (no error bar), the server's reason and the rulebook.
        version = state_of(base)["version"]
        fee.tap()
        dialog = page.locator("#dialog")
        expect(dialog).to_be_visible()
        expect(dialog).to_have_attribute("data-name", "correction")
        expect(page.locator("#dialog-title")).to_have_text("Not now, by the rules")
        expect(page.locator("#dialog-body .dialog-why")).to_have_text(reason)
        expect(page.locator("#dialog-body .rule-quote")).to_have_text(f"“{JAIL_LINE}”")
        expect(page.locator("#error")).to_be_hidden()
        buttons = page.locator("#dialog-buttons button")
        expect(buttons).to_have_text(["Cancel", "Record it as a correction"])
        dialog_settled(page)
        readable(page)
        shot(page, "phone-flow-correction-dialog")
        # Cancel: nothing changes.
        buttons.first.tap()
        expect(dialog).to_be_hidden()
        page.wait_for_timeout(300)
        assert state_of(base)["version"] == version
        luigi_now = state_of(base)["players"][1]
        assert luigi_now["in_jail"] and luigi_now["balance"] == 30
        expect(page.locator("#error")).to_be_hidden()
        # Again, recorded as a correction: Luigi pays 5 and is out of Jail; the history says so.
        expect(fee).to_be_enabled()
        fee.tap()
        expect(dialog).to_be_visible()
        dialog_settled(page)
        page.locator("#dialog-buttons button", has_text="Record it as a correction").tap()
        expect(dialog).to_be_hidden()
        expect(page.locator("#toast")).to_be_visible()
        after = state_of(base)
        assert not after["players"][1]["in_jail"] and after["players"][1]["balance"] == 25
        assert after["current_player"] == mario
        made = moves(base)[-1]
        assert (made["data"].get("correction") or {}).get("rule") == "jail", made
        assert made["text"].startswith("Correction: Luigi"), made
        expect(page.locator("#history li.correction")).to_have_count(2)
        newest = page.locator("#history li").first
        expect(newest).to_have_class(re.compile(r"\bcorrection\b"))
        expect(newest.locator(".correction-tag")).to_have_text("correction")
        expect(page.locator("#error")).to_be_hidden()
        page.locator("#toast").evaluate("t => t.hidden = true")
        page.locator("#history").scroll_into_view_if_needed()
        readable(page)
        shot(page, "phone-flow-history", readme=False)
        # Back in Jail, and now his turn: the fee is his at its start (nothing marked).
        api(base, "/api/jail", {"player": luigi, "in_jail": True, "correction": True})
        api(base, "/api/current", {"player": luigi})
        page.locator("#pad-close").dispatch_event("click")
        tile(page, "Luigi").tap()
        expect(fee).to_be_visible()
        expect(fee).not_to_have_class(re.compile(r"\bnot-now\b"))
        assert fee.get_attribute("aria-description") is None
        expect(page.locator("#go")).not_to_have_class(re.compile(r"\bnot-now\b"))
        ctx.close()


# -- the bankruptcy's creditor, from the state ----------------------------------------------


def test_the_creditor_is_whom_the_player_owes_however_many_lines_came_since(
        browser: Browser, config: Path) -> None:
    with daemon(config) as base:
        mario, luigi, peach = api_state(base)
        api(base, "/api/transfers", {"from": mario, "to": luigi, "amount": 40})  # 30 - 40: -10
        for _ in range(3):
            api(base, "/api/go", {"player": mario})  # Mario is current: +2 each, still below 0
        for payer, payee in ((luigi, peach), (peach, luigi), (peach, "bank"), ("bank", peach),
                             (luigi, "bank"), ("bank", luigi)):
            api(base, "/api/transfers", {"from": payer, "to": payee, "amount": 1})
        now = state_of(base)
        assert now["players"][0]["balance"] == -4
        assert now["players"][0]["owes_to"] == luigi
        assert now["players"][1]["owes_to"] is None
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        page.locator("#bankrupt-fold > summary").tap()
        expect(page.locator("#bankrupt-player")).to_have_value(str(mario))
        expect(page.locator("#bankrupt-creditor")).to_have_value(str(luigi))
        # Another player, who owes nobody: the Bank.
        page.locator("#bankrupt-player").select_option(str(peach))
        expect(page.locator("#bankrupt-creditor")).to_have_value("bank")
        page.locator("#bankrupt-player").select_option(str(mario))
        expect(page.locator("#bankrupt-creditor")).to_have_value(str(luigi))
        ctx.close()


# -- the sale of deeds in the pay confirmation ----------------------------------------------


def test_a_payer_short_of_coins_sells_a_deed_in_the_pay_confirmation(browser: Browser,
                                                                      tmp_path: Path) -> None:
    with daemon(table_config(tmp_path, "gamer", ["Mario", "Luigi", "Peach"])) as base:
        mario, luigi, _peach = api_state(base)
        board = gamer_board()
        board["spaces"][1]["price"] = 3  # Acorn Plains: its price typed
        put(base, "/api/board", board)
        api(base, "/api/deeds", {"space": 1, "player": luigi, "price": 3})
        start = {p["name"]: p["balance"] for p in state_of(base)["players"]}
        assert state_of(base)["deeds"] == {"1": luigi}
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        # Luigi pays Peach 30: more than he has; the question lists his deed and its price.
        tile(page, "Luigi").tap()
        tile(page, "Peach").tap()
        for d in "30":
            page.locator(f'#keys button[data-key="{d}"]').tap()
        page.locator("#pad-pay").tap()
        expect(page.locator("#dialog")).to_have_attribute("data-name", "confirm-pay")
        deed = page.locator("#dialog .sale-deed")
        expect(deed).to_have_count(1)
        expect(deed).to_contain_text("Acorn Plains")
        expect(deed).to_contain_text("3 coins")
        expect(page.locator("#sale-value")).to_be_hidden()  # its price is typed: nothing to type
        # Paid without selling: refused by the rules (sell first), asked, with the sale offered.
        dialog_settled(page)
        page.locator("#dialog-buttons button").last.tap()
        expect(page.locator("#dialog")).to_have_attribute("data-name", "correction")
        expect(page.locator("#dialog-body .dialog-why")).to_contain_text("sell Property first")
        expect(page.locator("#dialog-body .dialog-why")).to_contain_text("Acorn Plains")
        expect(page.locator("#dialog-buttons button")).to_have_text(
            ["Cancel", "Record it as a correction", "Sell Property first"])
        dialog_settled(page)
        readable(page)
        shot(page, "phone-flow-sell-first", readme=False)
        page.locator("#dialog-buttons button", has_text="Sell Property first").tap()
        expect(page.locator("#dialog")).to_have_attribute("data-name", "confirm-pay")
        expect(page.locator("#dialog .sale-deed")).to_have_count(1)
        assert state_of(base)["deeds"] == {"1": luigi}  # nothing was written meanwhile
        # Ticked: the Bank pays its price, then the payment (one move).
        page.locator("#dialog .sale-deed input").check()
        expect(page.locator("#dialog .sale-deed")).to_have_class(re.compile(r"\bon\b"))
        expect(page.locator("#dialog .sale-sum")).to_have_text("The Bank pays 3 for the deed")
        left = start["Luigi"] + 3
        expect(page.locator("#dialog .sale-after")).to_have_text(
            f"With the sale: Luigi pays {left} of 30, keeps 0")
        dialog_settled(page)
        readable(page)
        shot(page, "phone-flow-sale")
        page.locator("#dialog-buttons button").last.tap()
        expect(page.locator("#dialog")).to_be_hidden()
        expect(page.locator("#toast")).to_contain_text("Luigi sold Property for 3")
        after = state_of(base)
        assert after["deeds"] == {}
        balances = {p["name"]: p["balance"] for p in after["players"]}
        assert balances["Luigi"] == 0 and balances["Peach"] == start["Peach"] + left
        sale = [m for m in moves(base) if m["kind"] == "sale"]
        assert len(sale) == 1 and sale[0]["data"]["deeds"] == [1], sale
        assert mario  # Mario's turn all along: a payment is any time
        ctx.close()

