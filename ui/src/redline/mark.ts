// The redline of a note: its rendering before and after its pending hunks,
// compared atom by atom (jsdiff's `diffArrays`, Myers' algorithm), drawn as
// one document — the new one's structure, removed words struck through
// (`<del>`), inserted ones marked (`<ins>`), a block removed whole drawn as
// the block it was — each change tied to its hunk by its source line.

import { diffArrays } from "diff";
import { type Atom, atomize } from "./atoms.js";

/** A pending hunk's lines: `old` in the note before it, `new` after (each
 * `[start, end)`, 0-based; empty where it only inserts or only removes). */
export interface HunkLines {
  id: string;
  old: [number, number];
  new: [number, number];
}

/** A note to draw as a redline. */
export interface Redline {
  /** The note without its pending hunks. */
  before: string;
  /** The note with them (the working buffer). */
  after: string;
  /** The note with them as the agent made them, without what the user
   * typed inside their text; absent when the user typed nothing there. */
  agentAfter?: string;
  hunks: HunkLines[];
}

/** Whom a change is marked for: a hunk (its id, or `null` when no hunk
 * holds it), or the user's own typing. */
type Mark = { hunk: string | null; own?: boolean };

/** The hunk whose lines (`side` of it) hold `line`; a change on a line no
 * hunk holds (the comparison matched words across lines) goes to the
 * nearest hunk before it, else after. */
function owner(hunks: readonly HunkLines[], side: "old" | "new", line: number): string | null {
  let best: HunkLines | null = null;
  let distance = Infinity;
  for (const h of hunks) {
    const [start, end] = h[side];
    const d = line < start ? start - line : line >= Math.max(end, start + 1) ? line - Math.max(end, start + 1) + 1 : 0;
    if (d < distance) [best, distance] = [h, d];
  }
  return best?.id ?? null;
}

/** Whether `atoms` open and close their own elements (a whole block or
 * more): then they are drawn with their tags. */
function balanced(atoms: readonly Atom[]): boolean {
  let depth = 0;
  for (const a of atoms) {
    if (a.kind === "open") depth++;
    else if (a.kind === "close" && --depth < 0) return false;
  }
  return depth === 0;
}

const attr = (hunk: string | null) => (hunk ? ` data-hunk="${hunk.replace(/[&"<>]/g, "")}"` : "");

/** A mark's class and attributes: the user's own typing is theirs, with no
 * hunk's controls. */
const markAttrs = (kind: "del" | "ins", mark: Mark) => (mark.own ? ` class="rl-own" title="Your typing"` : ` class="rl-${kind}"${attr(mark.hunk)}`);

/** A run of removed (`del`) or inserted (`ins`) atoms as HTML: words and
 * whole pieces in one `<del>`/`<ins>` a hunk, tags as the side's structure
 * needs them. */
function changed(atoms: readonly Atom[], kind: "del" | "ins", markOf: (a: Atom) => Mark): string {
  const whole = balanced(atoms);
  let out = "";
  let open: string | undefined; // the key of the mark open now (undefined: none)
  let openAt = 0; // where the open mark's tag starts in `out`
  let inner = ""; // what the open mark holds
  const close = () => {
    if (open === undefined) return;
    // Only spaces: kept as they are (`rl-space`), or the change would be
    // drawn as nothing, to be neither seen nor clicked.
    if (inner !== "" && /^\s*$/.test(inner.replace(/<[^>]*>/g, ""))) out = out.slice(0, openAt) + out.slice(openAt).replace(/^<(del|ins) class="/, '<$1 class="rl-space ');
    out += `</${kind}>`;
    open = undefined;
  };
  for (const a of atoms) {
    const mark = markOf(a);
    const hunk = mark.hunk;
    const key = mark.own ? "\u0000own" : (hunk ?? "");
    if (a.kind === "text" || a.kind === "whole") {
      if (open !== key) {
        close();
        openAt = out.length;
        inner = "";
        out += `<${kind}${markAttrs(kind, mark)}>`;
        open = key;
      }
      const html = a.html();
      inner += html;
      out += html;
      continue;
    }
    close();
    // Removed tags are drawn only around whole blocks (the new structure
    // has no place for half of one), though the space they made between
    // words stays; inserted ones always (they are it).
    if (kind === "del" && !whole) {
      out += a.html().replace(/<[^>]*>/g, "");
      continue;
    }
    out += a.kind === "open" && a.block && whole ? a.html({ cls: `rl-${kind}-block`, hunk }) : a.html();
  }
  close();
  return out;
}

/** One run of the comparison: atoms both have, or only one side. */
interface Part {
  value: Atom[];
  added?: boolean;
  removed?: boolean;
}

/** The comparison with each run that stands alone between two runs both
 * have slid, where the same atoms around it allow, to where it holds
 * whole elements: a removed list item reads as `<li>two</li>`, not as
 * `two</li><li>` (the same edit, drawn as half of two items). */
function aligned(parts: Part[]): Part[] {
  for (let i = 1; i + 1 < parts.length; i++) {
    const [before, run, after] = [parts[i - 1], parts[i], parts[i + 1]];
    if (!(run.added || run.removed) || before.added || before.removed || after.added || after.removed) continue;
    if (balanced(run.value)) continue;
    const start = { b: before.value.slice(), r: run.value.slice(), a: after.value.slice() };
    // Back, while the atom before the run is the run's last.
    let found = false;
    for (let { b, r, a } = { b: start.b.slice(), r: start.r.slice(), a: start.a.slice() }; b.length > 0 && b[b.length - 1].key === r[r.length - 1].key; ) {
      const moved = r.pop() as Atom;
      r.unshift(b.pop() as Atom);
      a.unshift(moved);
      if (balanced(r)) {
        [before.value, run.value, after.value] = [b, r, a];
        found = true;
        break;
      }
    }
    if (found) continue;
    // On, while the atom after the run is the run's first.
    for (let { b, r, a } = { b: start.b.slice(), r: start.r.slice(), a: start.a.slice() }; a.length > 0 && a[0].key === r[0].key; ) {
      const moved = r.shift() as Atom;
      r.push(a.shift() as Atom);
      b.push(moved);
      if (balanced(r)) {
        [before.value, run.value, after.value] = [b, r, a];
        break;
      }
    }
  }
  return parts;
}

/** A link to a note whose target changed and whose words did not (a
 * note renamed, its links following): drawn once, as the new link, with
 * both targets said on hover — not as the same words struck and put back. */
function retargeted(removed: readonly Atom[], next: Part | undefined): { html: string; title: string } | null {
  const [was, now] = [removed[0], next?.value[0]];
  if (!next?.added || removed.length !== 1 || next.value.length !== 1 || !now) return null;
  if (!was.key.startsWith("wwikilink") || !now.key.startsWith("wwikilink")) return null;
  const words = (a: Atom) => a.html().replace(/<[^>]*>/g, "");
  const target = (a: Atom) => /data-target="([^"]*)"/.exec(a.html())?.[1] ?? "";
  if (words(was) !== words(now)) return null;
  return { html: now.html(), title: `Link: ${target(was)} → ${target(now)}` };
}

/** Each atom of `atoms` with its place among the atoms of its line that
 * have its key: the same place in two atomizations of one text. */
function placed(atoms: readonly Atom[]): Map<Atom, string> {
  const seen = new Map<string, number>();
  const out = new Map<Atom, string>();
  for (const a of atoms) {
    const key = `${a.line}\u0000${a.key}`;
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    out.set(a, `${key}\u0000${n}`);
  }
  return out;
}

const isSpace = (a: Atom) => a.kind === "text" && a.key.trim() === "";

/** The atoms of `after` (the note's atoms as the redline compares them)
 * that the user typed inside a hunk's text: in the note and not in the
 * agent's version of it. Both are compared word by word throughout, and
 * the user's atoms found there by their place in their line. Words and
 * spaces only; a space is the user's only before a word of theirs (where
 * the comparison may put a space the two share). */
function ownAtoms(note: Redline, after: readonly Atom[]): Set<Atom> {
  const own = new Set<Atom>();
  if (note.agentAfter === undefined || note.agentAfter === note.after) return own;
  const full = atomize(note.after, () => true);
  const added = new Set<Atom>();
  for (const part of diffArrays(atomize(note.agentAfter, () => true), full, { comparator: (a, b) => a.key === b.key })) {
    if (part.added) for (const a of part.value) added.add(a);
  }
  const places = new Set<string>();
  const fullPlaces = placed(full);
  full.forEach((a, i) => {
    // A piece shown whole (a code block, a link) that the user typed in
    // holds the agent's change too: it stays the hunk's, with its controls.
    if (!added.has(a) || a.kind !== "text") return;
    const next = full[i + 1];
    if (isSpace(a) && !(next && added.has(next) && !isSpace(next))) return;
    places.add(fullPlaces.get(a) as string);
  });
  for (const [a, place] of placed(after)) if (places.has(place)) own.add(a);
  return own;
}

/** Of one side of the hunks (`old` or `new`): `near`, whether a block's
 * lines `[start, end)` are about a hunk's (a hunk that only inserts or
 * only removes is about the lines either side), so that only such blocks
 * are compared word by word; and `held`, whether a hunk holds a line (in
 * those blocks only the hunks' own lines are compared word by word: a line
 * no hunk holds is the same on both sides, whole). Both answer in constant
 * time from counts per line: asking each of 200 hunks about each block of
 * a 5,000-line note was a tenth of its drawing. */
function lineIndex(hunks: readonly HunkLines[], side: "old" | "new") {
  const size = hunks.reduce((most, h) => Math.max(most, h[side][1], h[side][0] + 1), 0) + 1;
  // Lines held, and places a hunk only inserts at, each counted up to a line.
  const held = new Int32Array(size + 1);
  const points = new Int32Array(size + 1);
  for (const [s, e] of hunks.map((h) => h[side])) {
    if (e > s) for (let l = s; l < e; l++) held[l + 1] = 1;
    else points[s + 1] = 1;
  }
  for (let l = 1; l <= size; l++) {
    held[l] += held[l - 1];
    points[l] += points[l - 1];
  }
  const upTo = (counts: Int32Array, line: number) => counts[Math.max(0, Math.min(line, size))];
  return {
    near: (start: number, end: number) =>
      end <= start
        ? hunks.some((h) => {
            const [s, e] = h[side];
            return e > s ? start < e && s < end : start <= s && s - 1 < end;
          })
        : upTo(held, end) > upTo(held, start) || upTo(points, end + 1) > upTo(points, start),
    held: (line: number) => line >= 0 && upTo(held, line + 1) > upTo(held, line),
  };
}

/** The two sides compared atom by atom (jsdiff's `diffArrays`), apart
 * between each two hunks: the lines between them are the same on both
 * sides, so the comparison is cut in the middle of them where both sides
 * have the same atom there, and its runs joined. Myers' algorithm costs
 * the atoms times the changes: one comparison of a 5,000-line note with
 * 200 changes was a third of its drawing. Any cut gives a true account of
 * the change; one where the atoms agree keeps it the shortest. */
function compared(before: readonly Atom[], after: readonly Atom[], hunks: readonly HunkLines[]): Part[] {
  const comparator = (a: Atom, b: Atom) => a.key === b.key;
  const sorted = [...hunks].sort((a, b) => a.new[0] - b.new[0]);
  const cuts: [number, number][] = [];
  const first = (atoms: readonly Atom[], line: number, from: number) => {
    let i = from;
    while (i < atoms.length && atoms[i].line < line) i++;
    return i;
  };
  let [i, j] = [0, 0];
  for (let k = 0; k + 1 < sorted.length; k++) {
    const [a, b] = [sorted[k], sorted[k + 1]];
    const [oldFrom, newFrom] = [Math.max(a.old[1], a.old[0]), Math.max(a.new[1], a.new[0])];
    const gap = b.new[0] - newFrom;
    if (gap < 4 || b.old[0] - oldFrom !== gap) continue;
    const middle = Math.floor(gap / 2);
    const [ci, cj] = [first(before, oldFrom + middle, i), first(after, newFrom + middle, j)];
    if (ci >= before.length || cj >= after.length) break;
    if (before[ci].key !== after[cj].key || before[ci].line - oldFrom !== after[cj].line - newFrom) continue;
    cuts.push([ci, cj]);
    [i, j] = [ci, cj];
  }
  cuts.push([before.length, after.length]);
  const parts: Part[] = [];
  let [from, to] = [0, 0];
  for (const [ci, cj] of cuts) {
    for (const part of diffArrays(before.slice(from, ci), after.slice(to, cj), { comparator })) {
      const last = parts[parts.length - 1];
      if (last && !!last.added === !!part.added && !!last.removed === !!part.removed) {
        last.value = last.value.concat(part.value);
      } else parts.push({ value: part.value, added: part.added, removed: part.removed });
    }
    [from, to] = [ci, cj];
  }
  return parts;
}

/** The note's redline as HTML (not yet sanitized): its structure after the
 * hunks, every change marked in place with its hunk's id (`data-hunk`). */
export function redline(note: Redline): string {
  const [old, now] = [lineIndex(note.hunks, "old"), lineIndex(note.hunks, "new")];
  const before = atomize(note.before, old.near, old.held);
  const after = atomize(note.after, now.near, now.held);
  if (note.hunks.length === 0) return after.map((a) => a.html()).join("");
  let out = "";
  const parts = aligned(compared(before, after, note.hunks));
  const own = ownAtoms(note, after);
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    const link = part.removed ? retargeted(part.value, parts[i + 1]) : null;
    if (link) {
      out += `<span class="rl-retarget"${attr(owner(note.hunks, "new", parts[i + 1].value[0].line))} title="${link.title}">${link.html}</span>`;
      i++;
    } else if (part.removed) out += changed(part.value, "del", (a) => ({ hunk: owner(note.hunks, "old", a.line) }));
    else if (part.added) out += changed(part.value, "ins", (a) => ({ hunk: owner(note.hunks, "new", a.line), own: own.has(a) }));
    else out += part.value.map((a) => a.html()).join("");
  }
  return out;
}

/** The note without its pending hunks, and each pending hunk's lines
 * before and after, from the editor's view of it: its buffer `text` and
 * its hunks where they stand (`line`, `lines`, and the `old_text`
 * rejecting one leaves). */
export function beforeHunks(
  text: string,
  hunks: readonly { hunk_id: string; status: string; line: number; lines: number; old_text: string; agent_text?: string }[],
): Redline {
  const lines = text.split(/(?<=\n)/);
  const out: string[] = [];
  const agent: string[] = [];
  const spans: HunkLines[] = [];
  let typed = false;
  let at = 0;
  for (const h of [...hunks].filter((h) => h.status === "pending").sort((a, b) => a.line - b.line)) {
    if (h.line < at) continue; // overlapping spans: the first one's stands
    out.push(...lines.slice(at, h.line));
    agent.push(...lines.slice(at, h.line));
    const start = out.length;
    const old = h.old_text === "" ? [] : h.old_text.split(/(?<=\n)/);
    out.push(...old);
    spans.push({ id: h.hunk_id, old: [start, start + old.length], new: [h.line, h.line + h.lines] });
    // The hunk's lines as the agent made them, when the user typed there.
    if (h.agent_text !== undefined) typed = true;
    agent.push(h.agent_text ?? lines.slice(h.line, h.line + h.lines).join(""));
    at = h.line + h.lines;
  }
  out.push(...lines.slice(at));
  agent.push(...lines.slice(at));
  return { before: out.join(""), after: text, hunks: spans, ...(typed ? { agentAfter: agent.join("") } : {}) };
}
