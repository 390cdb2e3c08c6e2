// What a checkpoint's hunks are called in the checkpoints panel.
import assert from "node:assert/strict";
import { test } from "node:test";
import { hunkWords } from "../.unit-build/words.js";

/** A checkpoint file with one hunk whose reverse patch is `patch`. */
const file = (patch) => ({ file_path: "n.md", base_snapshot_hash: null, hunk_ids: ["h_1"], reverse_patches: [patch], hunks_now: [null] });

test("a hunk is named by the text it put in and took out", () => {
  const replaced = "--- a/n.md\n+++ b/n.md\n@@ -9,1 +9,1 @@\n-Meridian ships in week 3\n+Atlas ships in week 3\n";
  assert.equal(hunkWords(file(replaced), 0), "“Atlas ships in week 3” → “Meridian ships in week 3”");
  assert.equal(hunkWords(file("@@ -4,0 +4,1 @@\n-A new line\n"), 0), "added “A new line”");
  assert.equal(hunkWords(file("@@ -4,1 +4,0 @@\n+Gone now\n"), 0), "removed “Gone now”");
  const long = `@@ -1 +1 @@\n-${"word ".repeat(30)}\n`;
  assert.ok(hunkWords(file(long), 0).length < 60, hunkWords(file(long), 0));
});

test("a hunk that changed no line, or a file without its patches, has no words", () => {
  assert.equal(hunkWords(file(""), 0), "");
  assert.equal(hunkWords({ ...file("@@ -1 +1 @@\n-x\n"), reverse_patches: [] }, 0), "");
});

test("two long lines that differ at their end are cut around the change, not to the same prefix", () => {
  const took = "Atlas ships in week 3 of the second quarter, after the review with Zoë and Ana";
  const put = "Atlas ships in week 3 of the second quarter, after the review with Zoë and Ben";
  const patch = `@@ -2,1 +2,1 @@\n-${put}\n+${took}\n`;
  const words = hunkWords(file(patch), 0);
  assert.match(words, /“….*and Ana” → “….*and Ben”/, words);
  assert.ok(words.length < 100, words);
});

test("a change is cut in its middle, the text around it kept", async () => {
  const { clipChange } = await import("../.unit-build/clip.js");
  assert.deepEqual(clipChange("See [[Atlas]] today", "See [[Meridian]] today", 40), ["See [[Atlas]] today", "See [[Meridian]] today"]);
  const [a, b] = clipChange(`${"x".repeat(50)}[[Atlas]]${"y".repeat(50)}`, `${"x".repeat(50)}[[Meridian]]${"y".repeat(50)}`, 40);
  assert.equal(a, `…${"x".repeat(10)}[[Atlas]]${"y".repeat(10)}…`);
  assert.equal(b, `…${"x".repeat(10)}[[Meridian]]${"y".repeat(10)}…`);
  const [long] = clipChange("a".repeat(200), "b", 40);
  assert.ok(long.length <= 41 && long.includes("…"), long);
});
