// The describe editor's draft, kept in this browser by edition (issue 44): a reload (or a
// phone that sleeps) mid-description comes back where it was, the editor open at the same
// space. Dropped once the board is saved.

const KEY = "companion-board-draft:";

function fits(d) {
  return d && typeof d === "object" && typeof d.base === "string" && Array.isArray(d.all)
    && d.all.every((s) => s && typeof s === "object" && typeof s.name === "string")
    && (d.count === null || Number.isInteger(d.count)) && Array.isArray(d.faces) && Number.isInteger(d.at);
}

export function loadDraft(edition) {
  try {
    const d = JSON.parse(localStorage.getItem(KEY + edition));
    return fits(d) ? d : null;
  } catch (_) {
    return null;
  }
}

export function keepDraft(edition, draft, open) {
  try { localStorage.setItem(KEY + edition, JSON.stringify({ ...draft, open })); } catch (_) { /* full or off: kept in memory */ }
}

export function dropDraft(edition) {
  try { localStorage.removeItem(KEY + edition); } catch (_) { /* nothing kept */ }
}
