// The risk flags as the window orders and folds them: the worst first, an
// unread file never a risk of its own.
import assert from "node:assert/strict";
import { test } from "node:test";
import { flagLabel, risks, unread, worst } from "../.unit-build/flags.js";

const flag = (rule) => ({ rule, reason: rule });

test("a hunk's risks are listed worst first, without the unread file", () => {
  const flags = [flag("unread_file"), flag("breaks_pattern"), flag("code_block"), flag("dead_link")];
  assert.deepEqual(risks(flags).map((f) => f.rule), ["dead_link", "code_block", "breaks_pattern"]);
  assert.equal(flagLabel(flags), "⚑ dead link, code, outlier");
  assert.equal(unread(flags), true);
});

test("a hunk flagged only for an unread file has no risk to show", () => {
  assert.deepEqual(risks([flag("unread_file")]), []);
  assert.equal(flagLabel([flag("unread_file")]), null);
  assert.equal(flagLabel(undefined), null);
  assert.equal(unread([flag("dead_link")]), false);
});

test("a lost section or a dead link ranks before a table or an outlier", () => {
  const order = ["dead_link", "deletes_section", "front_matter", "table_shape", "breaks_pattern"].map((r) => worst([flag(r)]));
  assert.deepEqual(order, [...order].sort((a, b) => a - b));
  assert.ok(worst([flag("unread_file")]) > worst([flag("breaks_pattern")]), "no risks ranks last");
  assert.equal(worst([flag("table_shape"), flag("dead_link")]), worst([flag("dead_link")]));
});
