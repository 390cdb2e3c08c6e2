// The decision ledger (src/state/ledger.ts) on its own: each named
// transition, and the orderings the review UI once got wrong, as cases.
// `npm run unit` compiles it and runs these.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Ledger } from "../.unit-build/state/ledger.js";

/** A promise and the function that resolves it. */
function deferred() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
}

test("only the newest decision's answer on a file is taken; other files are not affected", () => {
  const ledger = new Ledger();
  const first = ledger.send("a.md", Promise.resolve());
  const other = ledger.send("b.md", Promise.resolve());
  const second = ledger.send("a.md", Promise.resolve());
  // The first answer, arriving after the second decision was sent, would
  // bring the second hunk back as pending: it is not taken.
  assert.equal(ledger.isNewest(first), false);
  assert.equal(ledger.isNewest(second), true);
  assert.equal(ledger.isNewest(other), true);
});

test("each decision waits for the answer to the one before, across files too", async () => {
  const ledger = new Ledger();
  const one = deferred();
  ledger.send("a.md", one.promise);
  const order = [];
  const waited = ledger.answered().then(() => order.push("second sent"));
  ledger.sendAcross(Promise.resolve());
  order.push("first sent");
  one.resolve();
  await waited;
  assert.deepEqual(order, ["first sent", "second sent"]);
});

test("an undo is sent across files: the answer to the decision it undoes is then stale", () => {
  const ledger = new Ledger();
  const decision = ledger.send("a.md", Promise.resolve());
  const other = ledger.send("b.md", Promise.resolve());
  ledger.sendAcross(Promise.resolve());
  assert.equal(ledger.isNewest(decision), false, "the decision's answer would undo the undo");
  assert.equal(ledger.isNewest(other), false);
  assert.equal(ledger.isNewest(ledger.send("a.md", Promise.resolve())), true, "a decision after it is taken");
});

test("the feed's word for a hunk decided here is an echo, heard once", () => {
  const ledger = new Ledger();
  ledger.decidedHere("h_1");
  assert.equal(ledger.isEcho("h_2"), false, "another's decision needs a refresh");
  assert.equal(ledger.isEcho("h_1"), true);
  assert.equal(ledger.isEcho("h_1"), false, "a later decision of it elsewhere is news");
});

test("decided hunks settle in batches: shown at the next idle moment, only those still settling", () => {
  const ledger = new Ledger();
  assert.equal(ledger.settle("h_1", "a.md"), true, "the first of a batch schedules the showing");
  assert.equal(ledger.settle("h_2", "a.md"), false);
  assert.equal(ledger.settle("h_3", "b.md"), false);
  // The engine refused h_2 before the page was idle: it shows as the tree says.
  assert.deepEqual(ledger.unsettle((id) => id === "h_2"), ["h_2"]);
  assert.deepEqual(ledger.showSettling(), ["h_1", "h_3"]);
  assert.equal(ledger.settle("h_4", "b.md"), true, "a new batch");
});

test("moving on skips hunks decided here until an answer for their file is taken", () => {
  const ledger = new Ledger();
  ledger.settle("h_1", "a.md");
  ledger.settle("h_2", "a.md");
  ledger.settle("h_3", "b.md");
  const pending = ["h_1", "h_2", "h_5"];
  assert.deepEqual(pending.filter((h) => !ledger.isSettling(h)), ["h_5"]);
  // The newest answer for a.md carries both of its decisions: its hunks are
  // out of the tree, none is settling; b.md's still is.
  assert.deepEqual(ledger.unsettle((_, path) => path === "a.md").sort(), ["h_1", "h_2"]);
  assert.equal(ledger.isSettling("h_3"), true);
});

test("a pattern settles all its hunks at once, outside the idle batches", () => {
  const ledger = new Ledger();
  ledger.settleAll([["h_1", "a.md"], ["h_2", "b.md"]]);
  assert.equal(ledger.isSettling("h_2"), true);
  assert.deepEqual(ledger.showSettling(), [], "nothing queued for the idle showing");
  assert.equal(ledger.settle("h_3", "c.md"), true, "the next single decision still schedules its batch");
});
