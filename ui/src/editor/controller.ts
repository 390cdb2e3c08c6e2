// One CodeMirror view on the open file's working buffer. It keeps the text
// in step with the engine both ways: the user's typing is sent as buffer
// edits (debounced, with the hash of the text it changes), and the engine's
// answers (a decided hunk, a reload, a rollback) are merged into the view as
// the smallest change, so the cursor and scroll stay where they are. The
// engine's changes never enter the undo history: Ctrl+Z undoes the user's
// typing only, never a decision or a reload. Each file keeps its own editor
// state (undo history, selection, scroll) while another one is open.

import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { markdown } from "@codemirror/lang-markdown";
import { frontMatter } from "./frontmatter";
import { bracketMatching, defaultHighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { highlightSelectionMatches, searchKeymap } from "@codemirror/search";
import { Annotation, ChangeSet, EditorSelection, EditorState, type Extension, Prec, type StateEffect, Transaction } from "@codemirror/state";
import {
  EditorView,
  type KeyBinding,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import type { FileContent, Status } from "../api/types";
import { type Hunk, type HunkActions, type HunkField, focusHunk, hunkExtension, hunkField, markHunk, relabelHunks, setHunks } from "./hunks";

/** Marks changes that came from the engine, not from the user's typing. */
const fromEngine = Annotation.define<boolean>();

/** The annotations of an engine change: marked as such, and kept out of the undo history. */
const engine = [fromEngine.of(true), Transaction.addToHistory.of(false)];

/** How many files keep their editor state while closed. */
const KEPT_STATES = 30;

/** A closed file's editor, as it was left. */
interface Parked {
  state: EditorState;
  scroll: number;
}

/** What the controller needs from the application. */
export interface EditorHost extends HunkActions {
  /** Sends the user's text; resolves to the engine's view of the file after it. */
  send(path: string, text: string, baseHash: string): Promise<FileContent>;
  /** The file holds typing the engine has not seen yet (or no longer). */
  unsynced(path: string, yes: boolean): void;
  /** The cursor moved onto another hunk (or off every hunk). */
  current(id: string | null): void;
}

/** Pixels of context a hunk in view keeps above and below it; one with
 * less is scrolled to. */
const HUNK_CONTEXT = 60;
/** Where a hunk scrolled to lands: this many pixels below the top, so the
 * hunks after it are in view too and the next moves scroll nothing. */
const HUNK_LANDING = 120;

/** How long typing pauses before it is sent. */
const SEND_AFTER_MS = 250;

export class EditorController {
  /** The CodeMirror view itself: read through {@link EditorController.view}. */
  private readonly editor: EditorView;
  /** A decision the redline showed first, for this view to take in after
   * that frame (see {@link EditorController.markDecidedSoon}). */
  private decidedLater: (() => void) | null = null;
  private readonly field: HunkField;
  private path: string | null = null;
  /** The engine's hash of the text it last confirmed. */
  private hash = "";
  /** The engine's text at `hash`: typing not sent yet is a change of it. */
  private base = "";
  private timer: ReturnType<typeof setTimeout> | undefined;
  private sending: Promise<void> | null = null;
  private dirty = false;
  /** Closed files' editor states, least recently closed first. */
  private readonly parked = new Map<string, Parked>();
  /** The scroll position, as of the last scroll: read when a file closes,
   * when the editor's layout is dirty and asking would force one. */
  private scrolled = 0;

  private readonly keys: Extension;

  /** `keys`: the application's shortcuts that act on the editor, ahead of its own. */
  constructor(
    parent: HTMLElement,
    private readonly host: EditorHost,
    keys: readonly KeyBinding[] = [],
  ) {
    this.keys = Prec.highest(keymap.of(keys));
    this.field = hunkField(host);
    this.editor = new EditorView({ parent, state: this.stateFor("") });
    const scroller = this.view.scrollDOM;
    scroller.addEventListener("scroll", () => (this.scrolled = scroller.scrollTop), { passive: true });
  }

  private stateFor(text: string): EditorState {
    return EditorState.create({
      doc: text,
      extensions: [
        // Line endings are kept as the file has them: CodeMirror would
        // otherwise read CRLF and write LF back.
        EditorState.lineSeparator.of(text.includes("\r\n") ? "\r\n" : "\n"),
        lineNumbers(),
        highlightActiveLineGutter(),
        history(),
        // No drawSelection(): the browser's own caret and selection. Its
        // drawn cursor blinks by a CSS animation that kept the page drawing
        // frames, so each accept waited for the display's next one and
        // cost a fifth more (ui/e2e/perf.test.mjs).
        highlightActiveLine(),
        bracketMatching(),
        highlightSelectionMatches(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        markdown({ extensions: [frontMatter] }),
        EditorView.lineWrapping,
        this.keys,
        keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap, indentWithTab]),
        hunkExtension(this.field),
        EditorView.updateListener.of((u) => {
          if (u.docChanged && !u.transactions.some((t) => t.annotation(fromEngine))) this.typed();
          if (u.selectionSet || u.docChanged) this.trackCurrent();
        }),
        EditorView.contentAttributes.of({ "data-testid": "editor", "aria-label": "File text" }),
      ],
    });
  }

  /** The CodeMirror view, with any decision shown first elsewhere taken
   * in: nothing reads or changes it before that decision is in it. */
  get view(): EditorView {
    this.takeInDecided();
    return this.editor;
  }

  /** The open file's path. */
  get openPath() {
    return this.path;
  }

  /** Shows `file`: with the editor state it was left in (history,
   * selection, scroll) when it was open before, else from scratch. */
  open(file: FileContent, hunk?: string | null) {
    clearTimeout(this.timer);
    if (this.path) this.keep(this.path);
    this.dirty = false;
    this.path = file.path;
    this.hash = file.hash;
    this.base = file.text;
    const parked = this.parked.get(file.path);
    this.parked.delete(file.path);
    if (parked) {
      this.view.setState(parked.state);
      // The engine's text now (another job's hunks, a reload) comes in as
      // an engine change: the history stays the user's.
      const changes = smallestChange(this.view.state.doc.toString(), file.text);
      this.view.dispatch({ changes: changes ?? undefined, effects: setHunks.of({ spans: file.hunks }), annotations: engine });
      if (hunk) this.goTo(hunk, true);
      else this.view.requestMeasure({ read: () => null, write: () => (this.view.scrollDOM.scrollTop = parked.scroll) });
      this.trackCurrent();
      return;
    }
    this.view.setState(this.stateFor(file.text));
    this.view.dispatch({ effects: setHunks.of({ spans: file.hunks, current: null }), annotations: engine });
    const target = hunk ?? this.hunks().find((h) => h.status === "pending")?.id;
    if (target) this.goTo(target, true);
  }

  /** Keeps the open file's editor state for when it is opened again. */
  private keep(path: string) {
    this.parked.delete(path);
    this.parked.set(path, { state: this.view.state, scroll: this.scrolled });
    if (this.parked.size > KEPT_STATES) this.parked.delete(this.parked.keys().next().value!);
  }

  /** Takes in the engine's view of the open file after an action. Typing made
   * since is kept and sent again on top of it. */
  merge(file: FileContent) {
    if (file.path !== this.path) return;
    if (this.dirty) {
      // The user typed meanwhile: the engine's change goes in under their
      // typing, which is sent again on top of it (never over it: their
      // unsent text would otherwise take the engine's change back out).
      const doc = this.view.state.doc.toString();
      const local = ChangeSet.of(smallestChange(this.base, doc) ?? [], this.base.length);
      const remote = ChangeSet.of(smallestChange(this.base, file.text) ?? [], this.base.length);
      this.view.dispatch({ changes: remote.map(local, true), annotations: engine });
      this.hash = file.hash;
      this.base = file.text;
      this.schedule();
      return;
    }
    this.hash = file.hash;
    this.base = file.text;
    const doc = this.view.state.doc.toString();
    const changes = smallestChange(doc, file.text);
    this.view.dispatch({
      changes: changes ?? undefined,
      effects: setHunks.of({ spans: file.hunks }),
      annotations: engine,
    });
    this.trackCurrent();
  }

  /** The hunks as they stand in the view. */
  hunks(): Hunk[] {
    return this.view.state.field(this.field).hunks;
  }

  /** The current hunk's id. */
  current(): string | null {
    return this.view.state.field(this.field).current;
  }

  /** Shows a decision at once, before the engine confirms it: accepted
   * hunks lose their marks, rejected ones give their lines back; then moves
   * on to `next`, if given, in the same transaction (one update of the
   * page, one frame). */
  markDecided(id: string, status: Status, next: string | null = null) {
    const state = this.view.state;
    const hunk = this.hunks().find((h) => h.id === id);
    if (!hunk) return;
    const changes = state.changes(
      status === "rejected"
        ? { from: hunk.from, to: hunk.lines === 0 ? hunk.from : Math.min(hunk.to + 1, state.doc.length), insert: hunk.oldText }
        : [],
    );
    const target = next ? this.hunks().find((h) => h.id === next) : undefined;
    this.view.dispatch({
      changes,
      effects: [markHunk.of({ id, status }), ...(target ? this.focusOn(target, changes) : [])],
      selection: target ? EditorSelection.cursor(changes.mapPos(target.from, -1)) : undefined,
      annotations: engine,
    });
  }

  /** {@link EditorController.markDecided} once the frame that shows the
   * decision elsewhere (the redline, while this view is hidden) is
   * painted, or sooner, the moment anything reads or changes this view:
   * a hidden editor's update of a long note would hold that frame back. */
  markDecidedSoon(id: string, status: Status, next: string | null = null) {
    this.takeInDecided();
    this.decidedLater = () => this.markDecided(id, status, next);
    // The next key acts on the next hunk, whether or not this view has
    // taken the decision in by then.
    this.host.current(next);
    requestAnimationFrame(() => setTimeout(() => this.takeInDecided(), 0));
  }

  private takeInDecided() {
    const later = this.decidedLater;
    this.decidedLater = null;
    later?.();
  }

  /** Moves the cursor to a hunk and brings it into view: one in view with
   * its context stays where it is, so moving between hunks on one screen
   * scrolls nothing; another lands near the top, with the hunks after it
   * below. `opened`: the file was just opened, so no layout tells yet what
   * is in view; the editor scrolls as little as it takes, after measuring. */
  goTo(id: string, opened = false) {
    const hunk = this.hunks().find((h) => h.id === id);
    if (!hunk) return false;
    this.view.dispatch({ selection: EditorSelection.cursor(hunk.from), effects: this.focusOn(hunk, undefined, opened) });
    return true;
  }

  /** The effects that make `hunk` current and bring it into view, its
   * positions mapped through `changes` made in the same transaction. */
  private focusOn(hunk: Hunk, changes?: ChangeSet, opened = false): StateEffect<unknown>[] {
    const current = focusHunk.of(hunk.id);
    if (opened) return [current, EditorView.scrollIntoView(EditorSelection.range(hunk.from, hunk.to), { y: "nearest", yMargin: HUNK_CONTEXT })];
    // A scroll costs the editor a second measure, when its event comes.
    if (this.inView(hunk.from, hunk.to, HUNK_CONTEXT)) return [current];
    const from = changes ? changes.mapPos(hunk.from, -1) : hunk.from;
    return [current, EditorView.scrollIntoView(from, { y: "start", yMargin: HUNK_LANDING })];
  }

  /** Whether the lines of `from`..`to` are on screen with `margin` pixels to
   * spare, by the editor's last layout: called before a change, while that
   * layout is still clean, so nothing is forced. */
  private inView(from: number, to: number, margin: number): boolean {
    const box = this.view.scrollDOM.getBoundingClientRect();
    const top = this.view.documentTop;
    return top + this.view.lineBlockAt(from).top >= box.top + margin && top + this.view.lineBlockAt(to).bottom <= box.bottom - margin;
  }

  /** Moves the cursor to the start of `line` (1-based) and scrolls it into the middle of the view. */
  /** Heads the hunks' boxes again: their jobs' requests are known now. */
  relabel() {
    this.view.dispatch({ effects: relabelHunks.of(null) });
  }

  goToLine(line: number) {
    const doc = this.view.state.doc;
    const at = doc.line(Math.min(Math.max(1, line), doc.lines)).from;
    this.view.dispatch({ selection: EditorSelection.cursor(at), effects: EditorView.scrollIntoView(at, { y: "center" }) });
  }

  /** The pending hunk after (or before) the cursor in this file, if any. */
  neighbour(direction: 1 | -1, fromId?: string | null): string | null {
    const all = this.hunks();
    // From a hunk: the next in document order, which may share its line.
    const i = fromId ? all.findIndex((h) => h.id === fromId) : -1;
    if (i >= 0) {
      for (let k = i + direction; k >= 0 && k < all.length; k += direction) if (all[k].status === "pending") return all[k].id;
      return null;
    }
    const pending = all.filter((h) => h.status === "pending");
    const at = this.view.state.selection.main.head;
    if (direction === 1) return pending.find((h) => h.from > at)?.id ?? null;
    return [...pending].reverse().find((h) => h.from < at)?.id ?? null;
  }

  /** The selected text and its lines (1-based), or null when nothing is selected. */
  selection(): { text: string; start: number; end: number } | null {
    const { from, to } = this.view.state.selection.main;
    if (from === to) return null;
    const doc = this.view.state.doc;
    return { text: doc.sliceString(from, to), start: doc.lineAt(from).number, end: doc.lineAt(to).number };
  }

  /** Sends any typing not sent yet; resolves once the engine has it. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    while (this.sending) await this.sending;
    if (this.dirty) await this.send();
  }

  private typed() {
    if (!this.path) return;
    if (!this.dirty) this.host.unsynced(this.path, true);
    this.dirty = true;
    this.schedule();
  }

  private schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.send(), SEND_AFTER_MS);
  }

  private async send(): Promise<void> {
    if (this.sending || !this.path) return;
    const path = this.path;
    const text = this.view.state.doc.toString();
    this.dirty = false;
    const done = (async () => {
      try {
        const file = await this.host.send(path, text, this.hash);
        if (this.path !== path) return;
        this.hash = file.hash;
        this.base = file.text;
        if (!this.dirty && this.view.state.doc.toString() === text) {
          this.view.dispatch({ effects: setHunks.of({ spans: file.hunks }), annotations: engine });
          this.host.unsynced(path, false);
        }
      } catch {
        // Not sent (the host said why, and fetches the engine's text when
        // it moved on): kept as typing, sent again on top of what comes.
        if (this.path === path) this.dirty = true;
      }
    })();
    this.sending = done.then(
      () => undefined,
      () => undefined,
    );
    try {
      await done;
    } finally {
      this.sending = null;
    }
    if (this.dirty) this.schedule();
  }

  private trackCurrent() {
    const head = this.view.state.selection.main.head;
    const on = this.hunks().find((h) => h.status === "pending" && head >= h.from && head <= Math.max(h.to, h.from));
    const id = on?.id ?? this.current();
    const stillPending = this.hunks().some((h) => h.id === id && h.status === "pending");
    const next = stillPending ? id : null;
    if (next !== this.current()) this.view.dispatch({ effects: focusHunk.of(next) });
    this.host.current(next ?? null);
  }
}

/** The one replacement that turns `a` into `b` (common prefix and suffix kept), or null if equal. */
export function smallestChange(a: string, b: string): { from: number; to: number; insert: string } | null {
  if (a === b) return null;
  let start = 0;
  const max = Math.min(a.length, b.length);
  while (start < max && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a.charCodeAt(endA - 1) === b.charCodeAt(endB - 1)) {
    endA--;
    endB--;
  }
  return { from: start, to: endA, insert: b.slice(start, endB) };
}
