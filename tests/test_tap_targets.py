"""The board on a phone (Mario Kart with a 40-space board described, 390x844, touch) in headless
Chromium against the real daemon (issue 44): every tap target of the Board card, the move row,
a space's sheet and the describe editor is at least 44x44 CSS px, the Banana's lit spaces too
(a 40-space ring drawn as the board's square gave them 25 px), and a lit space dropped on takes
the Banana."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.page_fit import Taps, call, pick_characters, write_config
from tests.test_banker_page import PHONE, banker, context
from tests.test_ring_page import KART_FACES, long_board, press_block
from tests.test_tablet_browser import daemon, state_of

FINGER = 44
"""The smallest tap target, in CSS px, each way."""

SMALL_TARGETS = """([within, finger]) => {
  // A file input hidden inside its label: the label is what the finger taps (measured here).
  const targets = 'button, input, select, summary, a[href], [role=button], ' +
                  'label:has(> input[type=file])';
  const found = [];
  for (const root of within.map((s) => document.querySelector(s)).filter(Boolean)) {
    for (const e of root.querySelectorAll(targets)) {
      if (!e.getClientRects().length || getComputedStyle(e).visibility === 'hidden') continue;
      if (e.type === 'checkbox' || e.type === 'radio') continue;  // the row around it is the target
      if (e.type === 'file' && e.closest('label')) continue;  // its label is the target
      const r = e.getBoundingClientRect();
      if (r.width < finger - 0.5 || r.height < finger - 0.5)
        found.push(`${e.id || e.className} "${(e.textContent || '').trim().slice(0, 16)}": ` +
                   `${r.width.toFixed(1)}x${r.height.toFixed(1)}`);
    }
  }
  return found;
}"""


def small_targets(page: Page, *within: str) -> list[str]:
    return page.evaluate(SMALL_TARGETS, [list(within), FINGER])


def test_the_board_s_tap_targets_are_a_finger_wide_on_a_phone(browser: Browser,
                                                              tmp_path: Path) -> None:
    with daemon(write_config(tmp_path, "mario_kart")) as base:
        pick_characters(base)
        long_board(base, KART_FACES, 40)
        page = banker(context(browser, PHONE), base)
        expect(page.locator("#ring-box .ring-cell")).to_have_count(40)
        assert small_targets(page, "#ring-card", "#move-bar") == []
        # A Banana rolled: its lit spaces on the ring.
        for _ in range(40):
            turn = Taps(page)
            outcome = press_block(page, turn)
            if outcome["params"]["face"] == "banana" and \
                    page.evaluate("state.players.find(p => p.current).name") != "Luigi":
                break
            call(base, "/api/next", {})
        else:
            pytest.fail("no Banana in 40 presses")
        turn.tap("#move-bar .banana-offer")
        lit = page.locator("#ring-box .ring-cell.on-path")
        expect(lit.first).to_be_visible()
        assert small_targets(page, "#ring-card", "#move-bar") == []
        space = int(lit.last.get_attribute("data-space") or "-1")
        turn.tap(f'#ring-box .ring-cell[data-space="{space}"]')
        expect(page.locator("#ring-box .ring-cell.on-path")).to_have_count(0)
        assert state_of(base)["bananas"] == [space]
        assert turn.taps == 3  # press, the Banana's button, the space
        # A space's sheet, and the describe editor's ring.
        page.locator('#ring-box .ring-cell[data-space="20"]').tap()
        expect(page.locator("#dialog")).to_be_visible()
        assert small_targets(page, "#dialog") == []
        page.keyboard.press("Escape")
        expect(page.locator("#dialog")).to_be_hidden()
        page.locator("#ring-edit-open").tap()
        expect(page.locator("#ring-edit-ring .ring-cell")).to_have_count(40)
        assert small_targets(page, "#ring-edit") == []
        page.context.close()
