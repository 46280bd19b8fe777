"""How the banker's page fits a phone: its height per edition, what the first screen shows, and
the taps of a typical turn, measured in headless Chromium against the real daemon.

``python -m tests.page_fit`` prints JSON (figures for a closing note, never asserted as a
timing). ``tests/test_page_fit.py`` asserts the behaviour the figures stand for.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.conftest import (
    BROWSER_TOKEN,
    CHROMIUM,
    CHROMIUM_ARGS,
    free_port,
)
from tests.test_tablet_browser import daemon

PHONE = {"width": 390, "height": 844}
PLAYERS = {"celebration": ["Mario", "Luigi", "Peach"],
           "movie": ["Mario", "Luigi", "Peach", "Toad"],
           "gamer": ["Mario", "Luigi", "Peach", "Yoshi"],
           "mario_kart": ["Mario", "Luigi", "Peach", "Yoshi"],
           "wiggly_worms": ["Mario", "Luigi", "Peach"]}
FIRST_SCREEN = ("#outcome", "#players", "#press")


def write_config(folder: Path, edition: str) -> Path:
    """A table of this edition's players on a free port with the tests' token."""
    path = folder / "companion.toml"
    names = ", ".join(f'"{n}"' for n in PLAYERS[edition])
    path.write_text(f'[audio]\nbackend = "null"\n[gpio]\npin_factory = "mock"\n'
                    f'[data]\ndir = "{folder}"\n[web]\nhost = "127.0.0.1"\n'
                    f'port = {free_port()}\ntoken = "{BROWSER_TOKEN}"\n'
                    f'[game]\nedition = "{edition}"\nplayers = [{names}]\n')
    return path


@dataclass
class Taps:
    """A page whose taps and keystrokes are counted."""

    page: Page
    taps: int = 0
    keys: int = 0
    scrolls: list[float] = field(default_factory=list)

    def tap(self, selector: str, **kw: Any) -> None:
        self.taps += 1
        self.page.locator(selector, **kw).first.click()

    def type(self, selector: str, text: str) -> None:
        self.taps += 1
        self.keys += len(text)
        self.page.locator(selector).first.fill(text)

    def scroll_y(self) -> float:
        return float(self.page.evaluate("window.scrollY"))


def on_first_screen(page: Page, selector: str) -> bool:
    """Whether the element's box is wholly inside the viewport at the page's top."""
    box = page.evaluate("""(sel) => { const el = document.querySelector(sel);
        if (!el || el.hidden || !el.getClientRects().length) return null;
        const r = el.getBoundingClientRect();
        return [r.top + window.scrollY, r.bottom + window.scrollY]; }""",
                        selector)
    return bool(box) and box[0] >= 0 and box[1] <= PHONE["height"]


def layout(page: Page) -> dict[str, Any]:
    """The page's height and what the first screen holds."""
    return {"height_px": page.evaluate("document.documentElement.scrollHeight"),
            "first_screen": {sel: on_first_screen(page, sel) for sel in FIRST_SCREEN}}


def open_phone(browser: Browser, base: str) -> Page:
    page = browser.new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    page.goto(f"{base}#token={BROWSER_TOKEN}")
    expect(page.locator("#link")).to_have_text("live")
    expect(page.locator("#edition")).not_to_be_empty()  # the state drawn
    page.wait_for_load_state("networkidle")  # and the edition's rules (GET /api/rules)
    page.wait_for_timeout(300)
    return page


def pay_turn(t: Taps, payer: str, payee: str, amount: str) -> None:
    """A payment from the tiles: who pays, who gets paid, the digits, Pay."""
    t.tap(".tile", has_text=payer)
    t.tap(".tile", has_text=payee)
    for digit in amount:
        t.tap(f'#keys button[data-key="{digit}"]')
    t.tap("#pad-pay")
    expect(t.page.locator("#toast")).to_be_visible()
    expect(t.page.locator("#pad")).not_to_have_class(re.compile(r"\bopen\b"))  # the sheet gone


def celebration_rent(page: Page) -> dict[str, Any]:
    """Celebration: Luigi lands on Mario's property and pays the deed's rent (typed: 12)."""
    t = Taps(page)
    before = t.scroll_y()
    pay_turn(t, "Luigi", "Mario", "12")
    return {"taps": t.taps, "keystrokes": t.keys, "scrolled_px": t.scroll_y() - before}


def movie_turn(page: Page) -> dict[str, Any]:
    """The Movie: press (both dice), the rent the roll lands on (typed: 6), next player."""
    t = Taps(page)
    before = t.scroll_y()
    t.tap("#press")
    expect(page.locator("#outcome .die").first).to_be_visible()
    outcome_top = page.evaluate("document.getElementById('outcome').getBoundingClientRect().top")
    pay_turn(t, "Mario", "Luigi", "6")
    t.tap("#next")
    return {"taps": t.taps, "keystrokes": t.keys, "scrolled_px": t.scroll_y() - before,
            "outcome_in_view_after_press": 0 <= outcome_top < PHONE["height"]}


def call(base: str, path: str, body: object = None) -> Any:
    """The API with the table token: GET without a body, else POST."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path.lstrip("/"), data=data, headers={
        "Authorization": f"Bearer {BROWSER_TOKEN}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())


def pick_characters(base: str) -> None:
    """Gamer, Mario Kart: a token each, as a setup leaves the table (one each at four)."""
    characters = [c["id"] for c in call(base, "/api/rules")["powers"]["characters"]]
    for p, character in zip(call(base, "/api/state")["players"], characters, strict=False):
        call(base, "/api/characters", {"player": p["id"], "characters": [character]})


def describe_board(base: str, size: int = 16) -> None:
    """Gamer, Mario Kart: a board of ``size`` spaces described (GO, Just Visiting on the fifth
    space, the rest without a rule), as the table describes its own once."""
    kinds = {k["effect"]: k["id"] for k in call(base, "/api/rules")["board"]["kinds"]}
    spaces: list[dict[str, Any]] = [{"kind": None, "name": ""} for _ in range(size)]
    spaces[0] = {"kind": kinds["go"], "name": "GO"}
    spaces[5] = {"kind": kinds["visit"], "name": ""}
    request = urllib.request.Request(base + "api/board", method="PUT", data=json.dumps(
        {"spaces": spaces, "faces": []}).encode(), headers={
            "Authorization": f"Bearer {BROWSER_TOKEN}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        reply.read()


ALL_DROP = {"gamer": "pow", "mario_kart": "lightning"}
"""The Power-up that has every other player drop where they stand."""


def gamer_turn(page: Page, ability: str) -> dict[str, Any]:
    """Gamer, Mario Kart (issue 31), the board described: the numbered die's 3 (the token
    moves), the Power-up die's ``ability`` (POW, Lightning: nobody says where they stand),
    next player."""
    t = Taps(page)
    before = t.scroll_y()
    who = page.evaluate("state.players.find(p => p.current).name")
    t.tap('#move-bar .move-key.die-key[data-steps="3"]')
    expect(page.locator("#toast")).to_be_visible()
    t.tap("#move-bar .move-power")
    t.tap(f'#dialog .power-face[data-ability="{ability}"]')
    expect(page.locator("#dialog")).to_be_hidden()
    t.tap("#next")  # written once the page names the next player (what a reader waits for)
    expect(page.locator("#move-bar .move-say")).not_to_contain_text(who)
    return {"taps": t.taps, "keystrokes": t.keys, "scrolled_px": t.scroll_y() - before}


def measure(browser: Browser, edition: str, shots: Path | None = None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp, \
            daemon(write_config(Path(tmp), edition)) as base:
        if edition in ("gamer", "mario_kart"):
            pick_characters(base)
        page = open_phone(browser, base)
        figures = layout(page)
        if shots is not None:
            page.screenshot(path=str(shots / f"fit-{edition}.png"), full_page=True)
        if edition == "celebration":
            figures["rent"] = celebration_rent(page)
        elif edition == "movie":
            figures["turn"] = movie_turn(page)
        elif edition in ("gamer", "mario_kart"):
            describe_board(base)
            expect(page.locator("#move-bar .move-keys")).to_be_visible()
            figures["described"] = layout(page)
            figures["turn"] = gamer_turn(page, ALL_DROP[edition])
        page.close()
        return figures


def main() -> int:
    """``--shots DIR``: also a full-page screenshot of each edition's page there."""
    shots = Path(sys.argv[sys.argv.index("--shots") + 1]) if "--shots" in sys.argv else None
    only = [a for a in sys.argv[1:] if a in PLAYERS] or list(PLAYERS)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            figures = {edition: measure(browser, edition, shots) for edition in only}
        finally:
            browser.close()
    json.dump({"phone": PHONE, "editions": figures}, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
