// The risk flags as the window orders and folds them: the worst first, an
// unread file never a risk of its own.
import assert from "node:assert/strict";
import { test } from "node:test";
import { flagLabel, risks, unread, worst } from "../.unit-build/flags.js";

// Severity and risk as the engine sends them (`RiskFlag::new`: the order
// its rules are declared in; an unread file is no risk).
const RULES = ["dead_link", "deletes_linked_note", "deletes_section", "shrinks_note", "front_matter", "whole_file", "table_shape", "code_block", "breaks_pattern", "unread_file"];
const flag = (rule) => ({ rule, reason: rule, severity: RULES.indexOf(rule), risk: rule !== "unread_file" });

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

test("the window ranks by the engine's severity, not by the rule's name", () => {
  const outlierFirst = { ...flag("breaks_pattern"), severity: 0 };
  assert.deepEqual(risks([{ ...flag("dead_link"), severity: 3 }, outlierFirst]).map((f) => f.rule), ["breaks_pattern", "dead_link"]);
  assert.deepEqual(risks([{ ...flag("dead_link"), risk: false }]), [], "the engine says what is no risk");
});

test("a lost section or a dead link ranks before a table or an outlier", () => {
  const order = ["dead_link", "deletes_section", "front_matter", "table_shape", "breaks_pattern"].map((r) => worst([flag(r)]));
  assert.deepEqual(order, [...order].sort((a, b) => a - b));
  assert.ok(worst([flag("unread_file")]) > worst([flag("breaks_pattern")]), "no risks ranks last");
  assert.equal(worst([flag("table_shape"), flag("dead_link")]), worst([flag("dead_link")]));
});
