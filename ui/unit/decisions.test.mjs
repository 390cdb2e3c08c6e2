// The window's decision sequences (src/state/decisions.ts) against a fake
// engine whose answers the test releases in the order it chooses, and a fake
// editor and window that record what was shown: the orderings the review UI
// once got wrong, each as a case.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Decisions } from "../.unit-build/state/decisions.js";

/** A promise and the function that resolves it. */
function deferred() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
}

/** Lets every pending promise callback run. */
const settle = () => new Promise((r) => setTimeout(r, 0));

/** A file as the engine answers it, at `version`. */
const file = (path, version, hunks = []) => ({ path, text: `v${version}`, hunks, state: {} });

/** A fake engine and window around one open file with hunks `hunks`. */
function desk(path = "a.md", hunks = ["h1", "h2", "h3"], unsaved = new Set()) {
  const log = [];
  const calls = [];
  const shown = new Set();
  const taken = [];
  const pending = [...hunks];
  const view = {
    openPath: path,
    cursor: null,
    neighbour(direction, id) {
      const i = pending.indexOf(id);
      return pending[i + direction] ?? null;
    },
    markDecided(id, status, next) {
      log.push(`shown ${id} ${status}`);
      pending.splice(pending.indexOf(id), 1);
      this.cursor = next;
    },
    flush: async () => {},
    goTo(id) {
      this.cursor = id;
    },
  };
  const port = {
    decide(id, body) {
      const answer = deferred();
      calls.push({ id, ...body, answer });
      log.push(`sent ${id} ${body.status}${body.dry_run ? " (plan)" : ""}`);
      return answer.promise;
    },
    decideMany(body) {
      const answer = deferred();
      calls.push({ many: body.selection, status: body.status, label: body.label, answer });
      log.push(`sent many ${body.status}`);
      return answer.promise;
    },
    takeStep(which) {
      const answer = deferred();
      calls.push({ step: which, answer });
      log.push(`sent ${which}`);
      return answer.promise;
    },
    file: async (p) => {
      log.push(`reloaded ${p}`);
      return file(p, "reloaded");
    },
    view: () => view,
    span: (id) =>
      id === "carrier"
        ? { dependents: ["h9"], depends_on: [], typed_inside: false }
        : id.startsWith("link")
          ? { dependents: [], depends_on: [], typed_inside: false, follows: ["m1"] }
          : { dependents: [], depends_on: [], typed_inside: false },
    takeAnswer(f) {
      taken.push(f.text);
    },
    showSettling(add, remove) {
      for (const id of add) shown.add(id);
      for (const id of remove) shown.delete(id);
    },
    selected: () => [
      ["p1", "a.md"],
      ["p2", "b.md"],
    ],
    ask: async (q) => {
      log.push(`asked ${q.hunkId}: ${q.linksLeft.map((l) => `${l.path} → ${l.from}`).join(", ")}`);
      return null;
    },
    tell: (kind, text) => log.push(`told ${text}`),
    idle: settle,
    nextFile: async (p) => {
      log.push(`next file after ${p}`);
      return false;
    },
    unsaved: (p) => unsaved.has(p),
    open: async (p, id) => log.push(`opened ${p} at ${id}`),
    refresh: async (show) => {
      log.push(show ? `refreshed showing ${show}` : "refreshed");
      if (show) view.goTo(show);
    },
    label: (id) => id,
    shown: () => {},
  };
  return { decisions: new Decisions(port), port, view, log, calls, shown, taken };
}

/** The engine's answer to a decision: the file at `version`. */
const decided = (id, version, moved = []) => ({ hunk_id: id, status: "accepted", moved, hidden_user_text: [], links_left: [], file: file("a.md", version) });

test("a decision is shown at once, sent, and its answer taken when it is the newest for the file", async () => {
  const d = desk();
  const done = d.decisions.decide("accepted", "h1");
  assert.deepEqual(d.log, ["shown h1 accepted"], "shown before anything is sent");
  assert.equal(d.view.cursor, "h2", "the cursor on the next hunk");
  await settle();
  assert.deepEqual(d.log, ["shown h1 accepted", "sent h1 accepted"]);
  assert.ok(d.shown.has("h1"), "settling: out of the lists until the tree says so");
  d.calls[0].answer.resolve(decided("h1", 1));
  await done;
  assert.deepEqual(d.taken, ["v1"]);
  assert.equal(d.shown.has("h1"), false, "the answer's file row takes over");
});

test("a decision the redline shows goes to the view the user sees first, and to the hidden editor after that frame", async () => {
  for (const seen of [true, false]) {
    const d = desk();
    d.port.decidedShown = (id, status) => {
      d.log.push(`redline ${id} ${status}`);
      return seen;
    };
    d.view.markDecidedSoon = (id, status) => d.log.push(`editor soon ${id} ${status}`);
    const done = d.decisions.decide("rejected", "h1");
    assert.deepEqual(d.log, seen ? ["redline h1 rejected", "editor soon h1 rejected"] : ["redline h1 rejected", "shown h1 rejected"], `redline seen: ${seen}`);
    await settle();
    d.calls[0].answer.resolve(decided("h1", 1));
    await done;
    assert.deepEqual(d.taken, ["v1"]);
  }
});

test("a second decision waits for the first's answer, and the first answer is not taken over it", async () => {
  const d = desk();
  const first = d.decisions.decide("accepted", "h1");
  const second = d.decisions.decide("rejected", "h2");
  await settle();
  assert.deepEqual(
    d.calls.map((c) => c.id),
    ["h1"],
    "the second is not sent before the first is answered",
  );
  d.calls[0].answer.resolve(decided("h1", 1));
  await settle();
  assert.deepEqual(
    d.calls.map((c) => c.id),
    ["h1", "h2"],
  );
  d.calls[1].answer.resolve(decided("h2", 2));
  await Promise.all([first, second]);
  assert.deepEqual(d.taken, ["v2"], "only the newest answer for the file: the first would show h2 pending again");
});

/** The engine's answer to an undo (or redo) that moved `moved`. */
const stepped = (moved, files, left = []) => ({ step_id: "s_1", label: "Accepted h1 in a.md", undone: true, moved, files, left });

test("undo goes after the decision made before the key, before a later one, and takes the engine's newest step", async () => {
  const d = desk();
  const first = d.decisions.decide("accepted", "h1");
  await settle();
  const undo = d.decisions.undo();
  // A decision made after the key press, while the first is unanswered.
  const later = d.decisions.decide("accepted", "h2");
  d.calls[0].answer.resolve(decided("h1", 1));
  await settle();
  assert.equal(d.calls[1].step, "undo", "the undo is sent next");
  assert.equal(d.calls.length, 2, "the later decision waits for the undo's answer");
  d.calls[1].answer.resolve(stepped([{ hunk_id: "h1", from: "accepted", to: "pending" }], ["b.md"]));
  await settle();
  d.calls[2].answer.resolve(decided("h2", 3));
  await Promise.all([first, undo, later]);
  assert.deepEqual(
    d.calls.map((c) => c.step ?? `${c.id} ${c.status}`),
    ["h1 accepted", "undo", "h2 accepted"],
  );
  assert.ok(d.log.includes("told Undid: Accepted h1 in a.md (1 hunk(s) in 1 file(s))"), d.log.join("; "));
  assert.ok(d.log.includes("opened b.md at h1"), "one hunk undone is shown where it is");
  assert.deepEqual(d.taken, ["v3"], "the first decision's answer is stale once the undo is sent; the later one's is taken");
});

test("an undo of one hunk of the open note puts the cursor on it with the note reloaded, not after the lists", async () => {
  const d = desk();
  d.view.cursor = "h3";
  const undo = d.decisions.undo();
  await settle();
  d.calls[0].answer.resolve(stepped([{ hunk_id: "h1", from: "accepted", to: "pending" }], ["a.md"]));
  await undo;
  assert.ok(d.log.includes("refreshed showing h1"), d.log.join("; "));
  assert.equal(d.view.cursor, "h1");
  assert.ok(!d.log.some((l) => l.startsWith("opened")), "the open note is not opened again");
});

test("a refused decision comes back: out of settling, its file reloaded", async () => {
  const d = desk();
  const done = d.decisions.decide("rejected", "h1");
  await settle();
  d.calls[0].answer.resolve(undefined);
  await done;
  assert.equal(d.shown.has("h1"), false);
  assert.ok(d.log.includes("reloaded a.md"), d.log.join("; "));
});

test("a decision that carries other hunks asks first; declined, nothing is decided", async () => {
  const d = desk("a.md", ["carrier", "h2"]);
  const done = d.decisions.decide("rejected", "carrier");
  await settle();
  assert.deepEqual(d.log, ["sent carrier rejected (plan)"], "planned, not shown decided");
  d.calls[0].answer.resolve({ ...decided("carrier", 1, [{ hunk_id: "h9", from: "pending", to: "rejected" }]), file: file("a.md", 1) });
  await done;
  assert.equal(d.calls.length, 1, "declined: not sent");
  assert.deepEqual(d.taken, []);
});

test("rejecting a move's link update says first which link it leaves; one that leaves none is decided without a question", async () => {
  const d = desk("a.md", ["link1", "link2"]);
  const asked = d.decisions.decide("rejected", "link1");
  await settle();
  assert.deepEqual(d.log, ["sent link1 rejected (plan)"], "planned first, not shown decided");
  const left = [{ path: "a.md", hunk_id: "link1", from: "Notes/Beta.md", to: "Archives/Beta.md" }];
  d.calls[0].answer.resolve({ ...decided("link1", 1), links_left: left });
  await asked;
  assert.ok(d.log.includes("asked link1: a.md → Notes/Beta.md"), d.log.join("; "));
  assert.equal(d.calls.length, 1, "declined: not sent");

  // Its move rejected too: nothing is left behind, and nothing is asked.
  const plain = d.decisions.decide("rejected", "link2");
  await settle();
  d.calls[1].answer.resolve(decided("link2", 2));
  await settle();
  assert.equal(d.calls[2].id, "link2");
  assert.equal(d.calls[2].dry_run, undefined, "decided for real");
  d.calls[2].answer.resolve(decided("link2", 3));
  await plain;
  assert.ok(!d.log.some((l) => l.startsWith("asked link2")), d.log.join("; "));
});

test("many hunks leave the lists at once, come back when refused, and one undo takes a step of many back", async () => {
  const d = desk();
  const refused = d.decisions.decideMany({ kind: "pattern", job_id: "j", pattern_id: "p" }, "accepted", "a pattern");
  await settle();
  assert.ok(d.shown.has("p1") && d.shown.has("p2"), "out of the lists before the answer");
  d.calls[0].answer.resolve(undefined);
  await refused;
  assert.equal(d.shown.size, 0, "back when refused");
  const done = d.decisions.decideMany({ kind: "pattern", job_id: "j", pattern_id: "p" }, "accepted", "a pattern");
  await settle();
  d.calls[1].answer.resolve({ status: "accepted", selected: 2, moved: 2, files: 2 });
  await done;
  assert.ok(d.log.includes("refreshed"));
  assert.equal(d.calls[1].label, "a pattern", "the step is named as the window names it");
  const undo = d.decisions.undo();
  await settle();
  assert.equal(d.calls[2].step, "undo", "the engine's step, never the selection sent again");
  d.calls[2].answer.resolve(stepped([{ hunk_id: "p1", from: "accepted", to: "pending" }, { hunk_id: "p2", from: "accepted", to: "pending" }], ["a.md", "b.md"], ["p3"]));
  await undo;
  assert.ok(d.log.some((l) => l.startsWith("told Undid:") && l.endsWith("(2 hunk(s) in 2 file(s); 1 changed since, left as they are)")), d.log.join("; "));
  assert.equal(d.log.at(-1), "refreshed", "many hunks: the lists and the open file reloaded");
});

test("the last hunk decided moves on to the next file, and says so when this one has decisions to save", async () => {
  const rejected = desk("a.md", ["h1"]);
  rejected.decisions.decide("rejected", "h1");
  await settle();
  assert.ok(rejected.log.includes("next file after a.md"), rejected.log.join("; "));
  assert.ok(!rejected.log.some((l) => l.includes("not saved yet")), rejected.log.join("; "));

  // Accepted: the file has a decision to save, and the user is told.
  const accepted = desk("a.md", ["h1"]);
  accepted.decisions.decide("accepted", "h1");
  await settle();
  assert.ok(accepted.log.includes("next file after a.md"), accepted.log.join("; "));
  assert.ok(accepted.log.some((l) => l.includes("a.md is decided, not saved yet")), accepted.log.join("; "));

  // Rejected in a file with unsaved work: told too.
  const typed = desk("a.md", ["h1"], new Set(["a.md"]));
  typed.decisions.decide("rejected", "h1");
  await settle();
  assert.ok(typed.log.some((l) => l.includes("not saved yet")), typed.log.join("; "));
});
