// The redline view's marking: for random notes and random edits, the view's
// text with the insertions taken out is the note before, and with the
// deletions taken out the note after — nothing lost, nothing twice — and
// every change carries a hunk of the note.
import assert from "node:assert/strict";
import { test } from "node:test";
import { atomize } from "../.unit-build/redline/atoms.js";
import { beforeHunks, redline } from "../.unit-build/redline/mark.js";
import { EXCERPT_LINES, excerpt } from "../.unit-build/redline/markdown.js";

const CASES = Number(process.env.REDLINE_REDLINE_CASES ?? 300);
const SEED = process.env.REDLINE_REDLINE_SEED === "random" ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.REDLINE_REDLINE_SEED ?? 7);

/** mulberry32: the same seed, the same notes. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const WORDS = ["café", "Budget", "the", "plan", "naïve", "Ωmega", "日本語", "שלום", "مرحبا", "🎉", "a\u00a0b", "👩‍💻", "a&b", "<x>", "==hi==", "*em*", "**strong**", "`code`", "[[Budget|the budget]]", "[[Notes/Plan#Goals]]", "#tag", "![[img.png]]", "[link](https://example.org)", "x_y"];
const LINES = [
  (w) => `# ${w()} ${w()}`,
  (w) => `## ${w()}`,
  (w) => `${w()} ${w()} ${w()} ${w()}`,
  (w) => `${w()} ${w()}`,
  (w) => `- ${w()} ${w()}`,
  (w) => `- [ ] ${w()}`,
  (w) => `- [x] ${w()}`,
  (w) => `1. ${w()}`,
  (w) => `| ${w()} | ${w()} |`,
  () => "|---|---|",
  (w) => `> ${w()} ${w()}`,
  (w) => `> [!note] ${w()}`,
  () => "```",
  () => "",
  () => "",
  () => "---",
  (w) => `${w()}[^1]`,
  (w) => `[^1]: ${w()}`,
];

function note(rnd, n) {
  const w = () => WORDS[Math.floor(rnd() * WORDS.length)];
  const lines = [];
  if (rnd() < 0.3) lines.push("---", `title: ${w()}`, `tags: [${w()}, x]`, "aliases:", `  - ${w()}`, "---");
  for (let i = 0; i < n; i++) lines.push(LINES[Math.floor(rnd() * LINES.length)](w));
  return lines;
}

/** Random hunks over `lines`: each replaces, inserts or removes a few lines. */
function edit(rnd, lines) {
  const w = () => WORDS[Math.floor(rnd() * WORDS.length)];
  const after = [];
  const hunks = [];
  let i = 0;
  let id = 0;
  while (i <= lines.length) {
    if (rnd() < 0.25) {
      const take = Math.min(lines.length - i, Math.floor(rnd() * 3));
      const put = Math.floor(rnd() * 3);
      if (take === 0 && put === 0) {
        if (i < lines.length) after.push(lines[i]);
        i++;
        continue;
      }
      const start = after.length;
      for (let k = 0; k < put; k++) after.push(rnd() < 0.5 && i + k < lines.length ? lines[i + k].replace(/\S+$/, w()) : LINES[Math.floor(rnd() * LINES.length)](w));
      hunks.push({ hunk_id: `h${++id}`, status: "pending", line: start, lines: put, old_text: lines.slice(i, i + take).map((l) => `${l}\n`).join("") });
      i += take;
      if (take === 0) {
        if (i < lines.length) after.push(lines[i]);
        i++;
      }
    } else {
      if (i < lines.length) after.push(lines[i]);
      i++;
    }
  }
  return { after: after.map((l) => `${l}\n`).join(""), hunks };
}

const unescape = (s) => s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&amp;/g, "&");
// Words only: the spaces between blocks are the renderer's, not the note's.
const text = (html) => unescape(html.replace(/<[^>]*>/g, "")).replace(/\s+/g, "");
// The user's own typing (`rl-own`) is inserted text too.
const without = (html, kind) => html.replace(new RegExp(`<${kind} class="rl-(${kind}|own)"[^>]*>[\\s\\S]*?</${kind}>`, "g"), "");

/** The user types a word at the end of a line of a pending hunk (one that
 * stays the same kind of block with a word more), as the engine reports
 * it: the buffer with the word, the hunk's `agent_text` without it. */
function typeInside(rnd, after, hunks, word) {
  const lines = after.split(/(?<=\n)/);
  // Not in a code block (shown whole, the hunk's with the user's word in it).
  let fenced = false;
  const inCode = lines.map((l) => (l.startsWith("```") ? ((fenced = !fenced), true) : fenced));
  const plainLine = (l, i) => !inCode[i] && /\p{L}/u.test(l) && !/^(\||---|\s*$|\[\^)/.test(l);
  const open = hunks.filter((h) => h.lines > 0 && lines.slice(h.line, h.line + h.lines).some((l, k) => plainLine(l, h.line + k)));
  if (open.length === 0) return null;
  const hunk = open[Math.floor(rnd() * open.length)];
  const at = hunk.line + lines.slice(hunk.line, hunk.line + hunk.lines).findIndex((l, k) => plainLine(l, hunk.line + k));
  const agentText = lines.slice(hunk.line, hunk.line + hunk.lines).join("");
  lines[at] = lines[at].replace(/\n$/, ` ${word}\n`);
  return { after: lines.join(""), hunks: hunks.map((h) => (h === hunk ? { ...h, agent_text: agentText } : h)) };
}
const plain = (note) => atomize(note).map((a) => a.html()).join("");

test(`marking the changes loses and repeats nothing (${CASES} random notes, seed ${SEED})`, () => {
  const rnd = random(SEED);
  for (let n = 0; n < CASES; n++) {
    // Some long enough for changes far apart (the comparison is cut between them).
    const lines = note(rnd, rnd() < 0.3 ? 20 + Math.floor(rnd() * 40) : 1 + Math.floor(rnd() * 14));
    const before = lines.map((l) => `${l}\n`).join("");
    let { after, hunks } = edit(rnd, lines);
    // Sometimes the user typed inside a change: their word is theirs.
    const typed = rnd() < 0.3 ? typeInside(rnd, after, hunks, "ⓤser") : null;
    if (typed) ({ after, hunks } = typed);
    const view = beforeHunks(after, hunks);
    assert.equal(view.before, before, `case ${n}: the note before its hunks is rebuilt from the buffer`);
    const html = redline(view);
    const why = `case ${n} (seed ${SEED})\n--- before\n${before}--- after\n${after}--- redline\n${html}`;
    assert.equal(text(without(html, "ins")), text(plain(before)), `without insertions it reads as before: ${why}`);
    assert.equal(text(without(html, "del")), text(plain(after)), `without deletions it reads as after: ${why}`);
    const ids = new Set(hunks.map((h) => h.hunk_id));
    for (const [, id] of html.matchAll(/data-hunk="([^"]*)"/g)) assert.ok(ids.has(id), `a mark names a hunk of the note: ${id} in ${why}`);
    if (text(plain(before)) !== text(plain(after))) assert.match(html, /class="rl-(ins|del|own)/, `a change that reads differently is marked: ${why}`);
    // The word as a word of the note (not inside a piece shown whole, a
    // code block or front matter, which stays the hunk's).
    if (typed && atomize(after, () => true).some((a) => a.kind === "text" && a.html().includes("ⓤser"))) {
      assert.match(html, /<ins class="rl-own" title="Your typing">[^<]*ⓤser/, `the user's word is marked as theirs: ${why}`);
      for (const [mark] of html.matchAll(/<ins class="rl-ins"[^>]*>[\s\S]*?<\/ins>/g)) assert.ok(!mark.includes("ⓤser"), `the user's word is not the agent's: ${mark} in ${why}`);
    }
  }
});

test("your own typing inside a change shows as yours, the agent's words as its hunk's", () => {
  const text = "# Plan\n\nStatus: final review soon\n";
  const view = beforeHunks(text, [{ hunk_id: "h1", status: "pending", line: 2, lines: 1, old_text: "Status: draft\n", agent_text: "Status: final review\n" }]);
  assert.equal(view.agentAfter, "# Plan\n\nStatus: final review\n");
  const html = redline(view);
  assert.match(html, /<del class="rl-del" data-hunk="h1">draft<\/del><ins class="rl-ins" data-hunk="h1">final review ?<\/ins><ins class="rl-own" title="Your typing"> ?soon<\/ins>/);
  // Untyped, no one's words are the user's.
  assert.doesNotMatch(redline(beforeHunks("# Plan\n\nStatus: final review\n", [{ hunk_id: "h1", status: "pending", line: 2, lines: 1, old_text: "Status: draft\n" }])), /rl-own/);
});

test("a rendered redline shows the note's structure, with each change in place", () => {
  const before = "---\ntitle: Plan\n---\n# Plan\n\nSee [[Budget|the budget]] and ==this==.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n";
  const after = "---\ntitle: Plan 2027\n---\n# Plan\n\nSee [[Budget 2027|the budget]] and ==that==.\n\n| a | b |\n|---|---|\n| 1 | 3 |\n";
  const html = redline({ before, after, hunks: [{ id: "h1", old: [1, 2], new: [1, 2] }, { id: "h2", old: [5, 6], new: [5, 6] }, { id: "h3", old: [9, 10], new: [9, 10] }] });
  assert.match(html, /<th class="property-key">title<\/th><td class="property-value">Plan<ins class="rl-ins" data-hunk="h1"> 2027<\/ins>/);
  assert.match(html, /<h1>Plan<\/h1>/);
  // A link whose target changed under the same words: drawn once, both targets said.
  assert.match(html, /<span class="rl-retarget" data-hunk="h2" title="Link: Budget → Budget 2027"><a class="wikilink" data-target="Budget 2027"[^>]*>the budget<\/a><\/span>/);
  assert.match(html, /<mark><del class="rl-del" data-hunk="h2">this<\/del><ins class="rl-ins" data-hunk="h2">that<\/ins><\/mark>/);
  assert.match(html, /<td><del class="rl-del" data-hunk="h3">2<\/del><ins class="rl-ins" data-hunk="h3">3<\/ins><\/td>/);
});

test("a removed list item is drawn as the item it was", () => {
  const html = redline({ before: "- one\n- two\n- three\n", after: "- one\n- three\n", hunks: [{ id: "h1", old: [1, 2], new: [1, 1] }] });
  assert.match(html, /<li class="rl-del-block" data-hunk="h1"><del class="rl-del" data-hunk="h1">two<\/del><\/li>/);
});

test("a change of spaces only is drawn as the spaces, to be seen and clicked", () => {
  const html = redline({ before: "one  two\n", after: "one two\n", hunks: [{ id: "h1", old: [0, 1], new: [0, 1] }] });
  assert.match(html, /<del class="rl-space rl-del" data-hunk="h1">\s+<\/del>/);
  const words = redline({ before: "one two\n", after: "one three\n", hunks: [{ id: "h1", old: [0, 1], new: [0, 1] }] });
  assert.doesNotMatch(words, /rl-space/);
});

test("a Markdown image is drawn as its address, never loaded, and a link to javascript: is no link", () => {
  const html = redline({ before: "![chart](https://example.org/c.png) [x](javascript:alert(1))\n", after: "![chart](https://example.org/c.png) [x](javascript:alert(1))\n", hunks: [] });
  assert.doesNotMatch(html, /\ssrc=/, html);
  assert.match(html, /<img class="rl-image" alt="chart \(not loaded: https:\/\/example.org\/c.png\)"/);
  assert.doesNotMatch(html, /href="javascript/i, html);
});

test("a note embed shows the note's first lines, or the section under its heading", () => {
  const note = "---\ntags: [x]\n---\n\n# Été\n\nIntro.\n\n## Goals\n\n- one\n- two\n\n### Detail\n\nMore.\n\n## Risks\n\nNone.\n";
  assert.deepEqual(excerpt(note, null), { text: "# Été\n\nIntro.\n\n## Goals\n\n- one\n- two\n\n### Detail\n\nMore.", cut: true });
  // The section runs to the next heading of its level: its subsections are in it.
  assert.deepEqual(excerpt(note, "goals"), { text: "## Goals\n\n- one\n- two\n\n### Detail\n\nMore.", cut: false });
  assert.deepEqual(excerpt(note, "Risks"), { text: "## Risks\n\nNone.", cut: false });
  assert.equal(excerpt(note, "Nowhere"), null);
  const long = Array.from({ length: 40 }, (_, i) => `Line ${i}`).join("\r\n");
  const part = excerpt(long, null);
  assert.equal(part.text.split("\n").length, EXCERPT_LINES);
  assert.equal(part.cut, true);
});
