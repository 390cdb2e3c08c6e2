// The engine's hunks drawn inline in CodeMirror, the way Zed and Cursor show
// an agent's edits: the new lines tinted in place, the lines they replaced
// struck through above them, the words that changed marked in both, and
// accept / reject buttons on each. The positions come from the engine
// (`FileContent.hunks`) and are mapped through every local change until the
// next reply replaces them.

import type { Change } from "@codemirror/merge";
import { type EditorState, type Extension, type Range, StateEffect, StateField } from "@codemirror/state";
import { Decoration, type DecorationSet, EditorView, WidgetType } from "@codemirror/view";
import type { HunkSpan, Status } from "../api/types";
import { wordDiff } from "./words";

/** A hunk where it is in the document now. */
export interface Hunk {
  id: string;
  status: Status;
  /** Start of its first line. */
  from: number;
  /** End of its last line (before the line break); `from` when it covers no line. */
  to: number;
  /** How many lines it covers. */
  lines: number;
  /** What rejecting it leaves on its lines (it and what builds on it gone). */
  oldText: string;
  /** Its lines as they were before it: what it replaced. */
  beforeText: string;
  /** The job that proposed it. */
  jobId: string | null;
}

/** What the buttons on a hunk do. */
export interface HunkActions {
  decide(id: string, status: Status): void;
  /** What a hunk's box is headed with: the request of the job that
   * proposed it (`null`: no job), as a person recognises it. */
  label(jobId: string | null): string;
  /** The engine's flags on a hunk, short and with their reasons, or `null`. */
  flag(id: string): { label: string; reasons: string } | null;
}

interface HunkState {
  hunks: Hunk[];
  current: string | null;
  decorations: DecorationSet;
}

/** Replaces the hunks with the engine's spans (positions in lines of the current document). */
export const setHunks = StateEffect.define<{ spans: HunkSpan[]; current?: string | null }>();
/** Marks a hunk decided before the engine answers (the optimistic step). */
export const markHunk = StateEffect.define<{ id: string; status: Status }>();
/** Makes a hunk the current one (the one the keys act on). */
export const focusHunk = StateEffect.define<string | null>();
/** Heads the hunks' boxes again ({@link HunkActions.label} says more now). */
export const relabelHunks = StateEffect.define<null>();

/** Positions of `spans` in `state`'s document. */
export function place(state: EditorState, spans: HunkSpan[]): Hunk[] {
  const doc = state.doc;
  // The engine counts lines ended by "\n"; CodeMirror has one more line after
  // a final line break, so line n (0-based) starts at doc.line(n + 1).
  const start = (line: number) => (line < doc.lines ? doc.line(line + 1).from : doc.length);
  return spans.map((s) => {
    const from = start(s.line);
    const to = s.lines === 0 ? from : doc.line(Math.min(s.line + s.lines, doc.lines)).to;
    return { id: s.hunk_id, status: s.status, from, to, lines: s.lines, oldText: s.old_text, beforeText: s.before_text, jobId: s.job_id };
  });
}

/** Word-level changes between texts, kept for the hunks drawn lately. */
const changesCache = new Map<string, readonly Change[]>();

/** The changes within a hunk (old text → new text), at word granularity. */
function wordChanges(oldText: string, newText: string): readonly Change[] {
  const key = `${oldText}\u0000${newText}`;
  let changes = changesCache.get(key);
  if (!changes) {
    changes = wordDiff(oldText, newText);
    if (changesCache.size > 2000) changesCache.clear();
    changesCache.set(key, changes);
  }
  return changes;
}

/** The widget each drawn box shows, for {@link Removed.updateDOM}. */
const drawn = new WeakMap<HTMLElement, Removed>();

class Removed extends WidgetType {
  constructor(
    readonly hunk: Hunk,
    readonly current: boolean,
    readonly actions: HunkActions,
    /** The word-level changes against the new text; empty to strike the whole text. */
    readonly changes: readonly Change[],
    /** What the box is headed with. */
    readonly label: string,
    /** The engine's flags on it, if any. */
    readonly flag: { label: string; reasons: string } | null,
  ) {
    super();
  }

  eq(other: Removed) {
    return (
      other.hunk.id === this.hunk.id &&
      other.hunk.oldText === this.hunk.oldText &&
      other.hunk.beforeText === this.hunk.beforeText &&
      other.current === this.current &&
      other.changes === this.changes &&
      other.label === this.label &&
      other.flag?.label === this.flag?.label &&
      other.flag?.reasons === this.flag?.reasons
    );
  }

  /** Becoming (or ceasing to be) the current hunk changes one class, a
   * new heading one text: the box is kept rather than drawn again, so its
   * height needs no new measure. */
  updateDOM(dom: HTMLElement) {
    const was = drawn.get(dom);
    if (!was || was.hunk.id !== this.hunk.id || was.hunk.oldText !== this.hunk.oldText || was.hunk.beforeText !== this.hunk.beforeText || was.changes !== this.changes || was.flag?.reasons !== this.flag?.reasons) return false;
    dom.classList.toggle("cm-hunk-current", this.current);
    const label = dom.querySelector(".cm-hunk-label");
    if (label) label.textContent = this.label;
    drawn.set(dom, this);
    return true;
  }

  toDOM() {
    const box = document.createElement("div");
    drawn.set(box, this);
    box.className = "cm-hunk" + (this.current ? " cm-hunk-current" : "");
    box.dataset.hunkId = this.hunk.id;
    const bar = document.createElement("div");
    bar.className = "cm-hunk-bar";
    const label = document.createElement("span");
    label.className = "cm-hunk-label";
    label.textContent = this.label;
    label.title = this.hunk.id;
    bar.append(label);
    if (this.flag) {
      // The same flag the review list shows, with its reasons in full.
      const flag = document.createElement("span");
      flag.className = "cm-hunk-flag";
      flag.dataset.testid = "editor-hunk-flag";
      flag.textContent = this.flag.label;
      flag.title = this.flag.reasons;
      bar.append(flag);
    }
    bar.append(this.button("accept", "Accept", "Alt+Y", "accepted"), this.button("reject", "Reject", "Alt+N", "rejected"));
    box.append(bar);
    if (this.flag) {
      const why = document.createElement("div");
      why.className = "cm-hunk-reasons";
      why.textContent = this.flag.reasons;
      box.append(why);
    }
    if (this.hunk.beforeText) {
      const old = document.createElement("div");
      old.className = "cm-hunk-removed";
      const text = this.hunk.beforeText.replace(/\r?\n$/, "");
      let at = 0;
      // An insertion takes nothing out: it has no mark here.
      for (const c of this.changes.filter((c) => c.toA > c.fromA)) {
        old.append(text.slice(at, c.fromA));
        const word = document.createElement("del");
        word.className = "cm-hunk-word-removed";
        word.dataset.testid = "word-removed";
        word.textContent = text.slice(c.fromA, c.toA);
        old.append(word);
        at = c.toA;
      }
      old.append(text.slice(at));
      box.append(old);
    }
    if (this.hunk.oldText !== this.hunk.beforeText) {
      // Later hunks build on its lines: rejecting it does not give back
      // what was there before it, and says what it leaves instead.
      const leaves = document.createElement("div");
      leaves.className = "cm-hunk-leaves";
      leaves.dataset.testid = "hunk-reject-leaves";
      const text = this.hunk.oldText.replace(/\r?\n$/, "");
      leaves.textContent = text ? `Rejecting it leaves: ${text}` : "Rejecting it leaves these lines out";
      box.append(leaves);
    }
    return box;
  }

  private button(kind: string, text: string, key: string, status: Status) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = `cm-hunk-${kind}`;
    b.dataset.testid = `hunk-${kind}`;
    b.dataset.hunkId = this.hunk.id;
    b.title = `${text} this hunk (${key})`;
    b.textContent = text;
    b.addEventListener("mousedown", (e) => e.preventDefault());
    b.addEventListener("click", () => this.actions.decide(this.hunk.id, status));
    return b;
  }

  ignoreEvent() {
    return true;
  }
}

const added = Decoration.line({ class: "cm-hunk-added" });
const addedCurrent = Decoration.line({ class: "cm-hunk-added cm-hunk-added-current" });
const addedWord = Decoration.mark({ class: "cm-hunk-word-added", attributes: { "data-testid": "word-added" } });

/** Marks words only where some text stays: a change of whole lines is tint enough. */
function worthMarking(changes: readonly Change[], oldText: string, newText: string) {
  const changed = changes.reduce((n, c) => n + (c.toA - c.fromA) + (c.toB - c.fromB), 0);
  return changes.length > 0 && changed < 0.8 * (oldText.length + newText.length);
}

/** Word changes of hunks drawn before, by their two texts: every update
 * draws every hunk again, and a note of hundreds would diff them all on
 * each decision. Cleared when it grows past a few notes' worth. */
const wordCache = new Map<string, readonly Change[]>();

function cachedWordChanges(oldText: string, newText: string): readonly Change[] {
  const key = `${oldText}\u0000${newText}`;
  let changes = wordCache.get(key);
  if (!changes) {
    if (wordCache.size >= 2000) wordCache.clear();
    changes = wordChanges(oldText, newText);
    wordCache.set(key, changes);
  }
  return changes;
}

function decorate(state: EditorState, hunks: Hunk[], current: string | null, actions: HunkActions): DecorationSet {
  const ranges: Range<Decoration>[] = [];
  for (const h of hunks) {
    if (h.status !== "pending") continue;
    const isCurrent = h.id === current;
    const oldText = h.beforeText.replace(/\r?\n$/, "");
    const newText = h.lines > 0 ? state.doc.sliceString(h.from, h.to) : "";
    let changes: readonly Change[] = [];
    if (oldText && newText) {
      const all = cachedWordChanges(oldText, newText);
      if (worthMarking(all, oldText, newText)) changes = all;
    }
    ranges.push(Decoration.widget({ widget: new Removed(h, isCurrent, actions, changes, actions.label(h.jobId), actions.flag(h.id)), block: true, side: -1 }).range(h.from));
    if (h.lines > 0) {
      const first = state.doc.lineAt(h.from).number;
      const last = state.doc.lineAt(h.to).number;
      for (let n = first; n <= last; n++) ranges.push((isCurrent ? addedCurrent : added).range(state.doc.line(n).from));
      for (const c of changes) {
        if (c.toB > c.fromB) ranges.push(addedWord.range(h.from + c.fromB, h.from + c.toB));
      }
    }
  }
  return Decoration.set(ranges, true);
}

/** The hunks and their decorations; `actions` answer the buttons. */
export function hunkField(actions: HunkActions) {
  return StateField.define<HunkState>({
    create: () => ({ hunks: [], current: null, decorations: Decoration.none }),
    update(value, tr) {
      let { hunks, current } = value;
      let changed = false;
      if (tr.docChanged) {
        hunks = hunks.map((h) => {
          const from = tr.changes.mapPos(h.from, -1);
          return { ...h, from, to: Math.max(from, tr.changes.mapPos(h.to, 1)) };
        });
        changed = true;
      }
      for (const e of tr.effects) {
        if (e.is(setHunks)) {
          hunks = place(tr.state, e.value.spans);
          if (e.value.current !== undefined) current = e.value.current;
          changed = true;
        } else if (e.is(markHunk)) {
          hunks = hunks.map((h) => (h.id === e.value.id ? { ...h, status: e.value.status } : h));
          changed = true;
        } else if (e.is(focusHunk)) {
          current = e.value;
          changed = true;
        } else if (e.is(relabelHunks)) {
          changed = true;
        }
      }
      if (!changed) return value;
      return { hunks, current, decorations: decorate(tr.state, hunks, current, actions) };
    },
    provide: (f) => EditorView.decorations.from(f, (v) => v.decorations),
  });
}

/** The hunk field of an editor built with {@link hunkExtension}. */
export type HunkField = ReturnType<typeof hunkField>;

/** The field plus its look. */
export function hunkExtension(field: HunkField): Extension {
  return [field, hunkTheme];
}

const hunkTheme = EditorView.baseTheme({
  ".cm-hunk-added": { backgroundColor: "var(--add-bg)" },
  ".cm-hunk-added-current": { boxShadow: "inset 3px 0 0 var(--accent)" },
  ".cm-hunk": {
    borderTop: "1px solid var(--border)",
    fontFamily: "var(--mono)",
  },
  ".cm-hunk-current": { boxShadow: "inset 3px 0 0 var(--accent)" },
  ".cm-hunk-bar": {
    display: "flex",
    gap: "6px",
    alignItems: "center",
    padding: "2px 8px",
    fontFamily: "var(--sans)",
    fontSize: "12px",
  },
  ".cm-hunk-label": { color: "var(--muted)", marginRight: "auto" },
  ".cm-hunk-bar button": {
    font: "inherit",
    padding: "1px 8px",
    borderRadius: "4px",
    border: "1px solid var(--border)",
    cursor: "pointer",
    background: "var(--panel)",
    color: "var(--fg)",
  },
  ".cm-hunk-bar .cm-hunk-accept": { borderColor: "var(--add-fg)", color: "var(--add-fg)" },
  ".cm-hunk-bar .cm-hunk-reject": { borderColor: "var(--del-fg)", color: "var(--del-fg)" },
  ".cm-hunk-removed": {
    whiteSpace: "pre-wrap",
    background: "var(--del-bg)",
    color: "var(--del-fg)",
    textDecoration: "line-through",
    padding: "0 6px 0 6px",
  },
  ".cm-hunk-flag": { color: "var(--del-fg)", fontWeight: "600", fontSize: "11px" },
  ".cm-hunk-reasons": { color: "var(--del-fg)", fontSize: "11px", padding: "0 6px 2px 6px", whiteSpace: "pre-wrap" },
  ".cm-hunk-leaves": { color: "var(--muted)", fontSize: "11px", fontStyle: "italic", padding: "2px 6px", whiteSpace: "pre-wrap" },
  ".cm-hunk-word-removed": { background: "var(--del-word-bg)", textDecoration: "line-through", borderRadius: "2px" },
  ".cm-hunk-word-added": { background: "var(--add-word-bg)", borderRadius: "2px" },
});
