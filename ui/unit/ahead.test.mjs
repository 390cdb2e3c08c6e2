// The next file fetched ahead (src/state/ahead.ts): taken once, replaced by
// a newer answer, dropped when something newer happens to it.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Ahead } from "../.unit-build/state/ahead.js";

test("a file fetched ahead is taken once, replaced by a newer answer, and dropped when the next file changes", async () => {
  const ahead = new Ahead();
  let fetched = 0;
  const fetch = async (path) => ({ path, n: ++fetched });
  ahead.fetch("b.md", fetch);
  ahead.fetch("b.md", fetch);
  assert.equal(fetched, 1, "held already: not fetched twice");
  ahead.answered({ path: "b.md", n: 99 });
  ahead.answered({ path: "c.md", n: 7 });
  assert.equal((await ahead.take("b.md")).n, 99, "the newer answer");
  assert.equal(ahead.take("b.md"), undefined, "taken once");
  assert.equal(ahead.take("c.md"), undefined, "an answer is not a fetch");
  ahead.fetch("c.md", fetch);
  ahead.fetch("d.md", fetch);
  assert.equal(ahead.take("c.md"), undefined, "only the next file is held");
  ahead.drop("d.md");
  assert.equal(ahead.take("d.md"), undefined);
  ahead.fetch("e.md", async () => {
    throw new Error("offline");
  });
  assert.equal(await ahead.take("e.md"), null, "a failed fetch is nothing held");
});
