// What this tablet keeps for the companion while its SD card refuses writes (issue 29).
//
// A press the bank could not save is held by the companion (in memory, and in a small file while
// the card takes it); every page with the table token also keeps a copy here, in the browser's
// own storage, and says so over the WebSocket. A write (a payment, a move) the bank refused for
// storage is kept here too, with its Idempotency-Key. When the companion no longer holds a press
// (it banked it, or it restarted and lost it), this page gives its copy back: the bank banks each
// press once (by its id), so giving back what is already in the bank changes nothing. A kept
// write is sent again, key and all, once the bank takes writes: it is written once.
// Nothing here trusts the server's list alone: a copy leaves this browser only when the bank says
// it has it ("banked"), or that it never can ("refused", then it stays for the file).
"use strict";

class Keeper {
  constructor(storageKey) {
    this.key = storageKey;
    this.giving = false;  // a give-back under way
  }

  load() {
    try {
      const kept = JSON.parse(localStorage.getItem(this.key) || "{}");
      return { presses: kept.presses || {}, writes: kept.writes || {}, refused: kept.refused || {} };
    } catch (err) {
      return { presses: {}, writes: {}, refused: {} };
    }
  }

  save(kept) {
    const empty = !Object.keys(kept.presses).length && !Object.keys(kept.writes).length &&
      !Object.keys(kept.refused).length;
    try {
      if (empty) localStorage.removeItem(this.key);
      else localStorage.setItem(this.key, JSON.stringify(kept));
      return true;
    } catch (err) {
      return false;  // the browser's storage is full or off: the companion still holds them
    }
  }

  // The presses the companion holds now (the state's storage.presses): kept here too. The ids this
  // page keeps, for the companion to count it as one more place they are kept.
  keep(presses) {
    const kept = this.load();
    let changed = false;
    for (const press of presses || []) {
      if (press && press.id && !kept.presses[press.id]) { kept.presses[press.id] = press; changed = true; }
    }
    if (changed && !this.save(kept)) return [];
    return Object.keys(kept.presses);
  }

  // A write the bank refused for storage (503: "saved" false, or null: not known).
  keepWrite(write) {
    const kept = this.load();
    kept.writes[write.key] = write;
    this.save(kept);
  }

  counts() {
    const kept = this.load();
    return { presses: Object.keys(kept.presses).length, writes: Object.keys(kept.writes).length,
             refused: Object.keys(kept.refused).length };
  }

  // Everything kept, as a file the banker can save (and give back from a file later).
  file() {
    const kept = this.load();
    return { kind: "companion-kept", saved_at: new Date().toISOString(),
             held_presses: [...Object.values(kept.presses), ...Object.values(kept.refused)],
             writes: Object.values(kept.writes) };
  }

  // Presses (from a file) to keep and give back like the rest.
  adopt(presses) {
    const kept = this.load();
    for (const press of presses || []) {
      if (press && typeof press.id === "string") kept.presses[press.id] = press;
    }
    this.save(kept);
  }

  // Give back the presses the companion does not hold (``held``: the ids it holds), 40 at a time;
  // ``send(presses)`` posts them and answers {id: "banked" | "held" | "refused"}. Returns how many
  // went into the bank.
  async giveBack(held, send) {
    if (this.giving) return 0;
    this.giving = true;
    let banked = 0;
    try {
      const kept = this.load();
      const due = Object.values(kept.presses).filter((p) => !held.has(p.id));
      for (let i = 0; i < due.length; i += 40) {
        const batch = due.slice(i, i + 40);
        let answer;
        try {
          answer = await send(batch);
        } catch (err) {
          if (err.status !== 400) throw err;  // not now: kept, given back later
          answer = Object.fromEntries(batch.map((p) => [p.id, "refused"]));  // never: for the file
        }
        const now = this.load();
        for (const [id, how] of Object.entries(answer || {})) {
          if (how === "banked") { delete now.presses[id]; banked += 1; }
          if (how === "refused" && now.presses[id]) { now.refused[id] = now.presses[id]; delete now.presses[id]; }
        }
        this.save(now);
      }
    } finally {
      this.giving = false;
    }
    return banked;
  }

  // Send the kept writes again, each with its own key: ``send(write)`` resolves when answered
  // (written now, or it already was) and rejects with err.status (503: keep it; else it is
  // refused for good and dropped). Returns [answered, refused] counts.
  async sendWrites(send) {
    let answered = 0;
    let refused = 0;
    for (const write of Object.values(this.load().writes)) {
      try {
        await send(write);
        answered += 1;
      } catch (err) {
        if (err.status === 503 || err.unanswered) continue;  // still not: kept
        refused += 1;
      }
      const now = this.load();
      delete now.writes[write.key];
      this.save(now);
    }
    return [answered, refused];
  }
}
