"""Why coins moved, in a few words for one log line (the small screen's coin log, a phone's
recent coins): a word for each kind of entry, the outcome's for the block's coins, the space
for the Board's pile, the banker's own note for a payment."""

from __future__ import annotations

from companion.core.ledger import BANK, Entry
from companion.i18n.said import Said, say

ENTRY_WORDS: dict[str, Said] = {
    "opening": say("start"), "pass_go": say("passed GO"), "undo": say("undo"),
    "jail": say("jail"), "bankruptcy": say("bankrupt"), "toll": say("Bowser's toll")}
OUTCOME_WORDS: dict[str, Said] = {
    "coins": say("coins"), "bowser": say("Bowser"), "power_up": say("power-up"),
    "game_over": say("Game Over"), "roll": say("roll"), "rent": say("rent"),
    "battle_won": say("beat Bowser"), "piranha": say("Piranha Plant"),
    "super_star": say("Super Star"), "jail_paid": say("jail fee")}
BLOCK_WORD = say("block")


def reason(entry: Entry, outcome_kind: str | None = None) -> str | Said:
    """The few words for why ``entry`` moved coins ('' for a payment with no note)."""
    kind = entry.kind.value
    if kind == "block":
        return OUTCOME_WORDS.get(outcome_kind or "", BLOCK_WORD)
    if entry.space is not None:  # the Board's pile: dropped there, or scooped up
        space = Said(entry.space)  # the board's spaces are the edition's words
        return say("on {space}", space=space) if entry.payer != BANK else \
            say("from {space}", space=space)
    if entry.note and kind in ("transfer", "contest"):  # the banker's note, "Boss 3: bonus"
        return entry.note
    return ENTRY_WORDS.get(kind, kind if kind != "transfer" else "")
