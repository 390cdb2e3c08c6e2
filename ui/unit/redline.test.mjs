// The redline view's marking: for random notes and random edits, the view's
// text with the insertions taken out is the note before, and with the
// deletions taken out the note after — nothing lost, nothing twice — and
// every change carries a hunk of the note.
import assert from "node:assert/strict";
import { test } from "node:test";
import { atomize } from "../.unit-build/redline/atoms.js";
import { beforeHunks, redline } from "../.unit-build/redline/mark.js";

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
const without = (html, kind) => html.replace(new RegExp(`<${kind} class="rl-${kind}"[^>]*>[\\s\\S]*?</${kind}>`, "g"), "");
const plain = (note) => atomize(note).map((a) => a.html()).join("");

test(`marking the changes loses and repeats nothing (${CASES} random notes, seed ${SEED})`, () => {
  const rnd = random(SEED);
  for (let n = 0; n < CASES; n++) {
    const lines = note(rnd, 1 + Math.floor(rnd() * 14));
    const before = lines.map((l) => `${l}\n`).join("");
    const { after, hunks } = edit(rnd, lines);
    const view = beforeHunks(after, hunks);
    assert.equal(view.before, before, `case ${n}: the note before its hunks is rebuilt from the buffer`);
    const html = redline(view);
    const why = `case ${n} (seed ${SEED})\n--- before\n${before}--- after\n${after}--- redline\n${html}`;
    assert.equal(text(without(html, "ins")), text(plain(before)), `without insertions it reads as before: ${why}`);
    assert.equal(text(without(html, "del")), text(plain(after)), `without deletions it reads as after: ${why}`);
    const ids = new Set(hunks.map((h) => h.hunk_id));
    for (const [, id] of html.matchAll(/data-hunk="([^"]*)"/g)) assert.ok(ids.has(id), `a mark names a hunk of the note: ${id} in ${why}`);
    if (text(plain(before)) !== text(plain(after))) assert.match(html, /class="rl-(ins|del)/, `a change that reads differently is marked: ${why}`);
  }
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

test("a Markdown image is drawn as its address, never loaded, and a link to javascript: is no link", () => {
  const html = redline({ before: "![chart](https://example.org/c.png) [x](javascript:alert(1))\n", after: "![chart](https://example.org/c.png) [x](javascript:alert(1))\n", hunks: [] });
  assert.doesNotMatch(html, /\ssrc=/, html);
  assert.match(html, /<img class="rl-image" alt="chart \(not loaded: https:\/\/example.org\/c.png\)"/);
  assert.doesNotMatch(html, /href="javascript/i, html);
});
