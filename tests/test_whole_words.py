"""A German browser on a phone (de-DE, 390x844, touch) in headless Chromium against the real
daemon (issue 44): the page says it is German (``<html lang="de">``, so a browser with German
hyphenation splits a long word where German does, with a hyphen) and no word of the tiles, the
buttons, the piles and the chips is split across two lines without one: "Frei Parke / n" on the
Free Parking pot, "Prinzessi / n Peach" on a tile (this Chromium has no hyphenation data, so a
word split here is split without a hyphen)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.page_fit import pick_characters
from tests.test_banker_page import PHONE, banker, context, shot
from tests.test_board_page import table_config
from tests.test_ring_page import kart_board, put
from tests.test_tablet_browser import api, daemon

BOXES = "button, .tile, summary, .chip, .pile, .pick-row, .deed-chip, .ring-cell, h2"
"""Where the words are: tiles, buttons and the like, and the cards' headings."""

SPLIT_WORDS = """(boxes) => {
  const split = [];
  for (const box of document.querySelectorAll(boxes)) {
    if (!box.getClientRects().length) continue;
    const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      // A word: letters between spaces, hyphens and slashes (a split there is a hyphen's).
      for (const m of node.textContent.matchAll(/[^\\s\\u00ad\\-\\u2010-\\u2014\\/]{2,}/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0)
          .map((r) => Math.round(r.top)));
        if (lines.size > 1) split.push(`${m[0]} (${box.id || box.className})`);
      }
    }
  }
  return [...new Set(split)];
}"""


def split_words(page: Page) -> list[str]:
    return page.evaluate(SPLIT_WORDS, BOXES)


def german(browser: Browser, base: str) -> Page:
    page = banker(context(browser, PHONE, locale="de-DE"), base)
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.locator("#next")).to_have_text("Nächster Spieler")
    return page


@pytest.mark.parametrize("edition", ["celebration", "mario_kart"])
def test_no_word_is_split_without_a_hyphen_in_german(browser: Browser, tmp_path: Path,
                                                     edition: str) -> None:
    with daemon(table_config(tmp_path, edition, ["Mario", "Luigi", "Peach", "Daisy"])) as base:
        if edition == "celebration":  # the Free Parking pot on
            api(base, "/api/games", {"edition": "celebration",
                                     "players": ["Anna", "Ben", "Cleo", "Dev"],
                                     "house": {"free_parking_pot": True, "files": []}})
        else:  # the characters picked, a board with Free Parking described
            pick_characters(base)
            put(base, "/api/board", kart_board())
        page = german(browser, base)
        if edition == "celebration":
            expect(page.locator("#pot-space")).to_have_text("Frei Parken")
        else:
            expect(page.locator(".tile .chars", has_text="Prinzessin Peach")).to_be_visible()
            expect(page.locator("#ring-box .ring-cell")).to_have_count(12)
        assert split_words(page) == []
        shot(page, f"phone-de-words-{edition}", full=True)
        page.locator("#players .tile .pick").nth(1).tap()  # the pay sheet open
        expect(page.locator("#pad-pay")).to_be_visible()
        assert split_words(page) == []
        page.context.close()
