// The window's decision sequences — decide, decide after asking, undo,
// decide many — as one object that owns the ledger (`ledger.ts`): the order
// each step goes in (shown at once, sent after the answer before it, its
// answer taken only while it is the newest for its file, taken back when the
// engine refuses) is here, and unit-tested with a fake engine and window
// (ui/unit/decisions.test.mjs). It holds no signals and calls no API:
// everything it does to the engine or the window goes through its `Port`.

import type { Decided, DecidedMany, FileContent, HunkMove, Selection, Status, Stepped } from "../api/types";
import type { DecisionAnswer, DecisionQuestion } from "./confirm";
// With its extension: the unit tests run the compiled module in Node as is.
import { Ledger } from "./ledger.js";

/** The editor view, as the decision sequences use it. */
export interface DecisionView {
  /** The file open in it, if any. */
  readonly openPath: string | null;
  /** The pending hunk after (1) or before (-1) `id` in the open file. */
  neighbour(direction: 1 | -1, id?: string | null): string | null;
  /** Shows `id` decided at once, the cursor on `next`. */
  markDecided(id: string, status: Status, next: string | null): void;
  /** The same, once the frame that shows it in another view is painted
   * (or sooner, when the editor is read); absent: at once. */
  markDecidedSoon?(id: string, status: Status, next: string | null): void;
  /** Sends typing not yet sent; rejects when the engine refused it. */
  flush(): Promise<void>;
  /** Puts the cursor on hunk `id`. */
  goTo(id: string): void;
}

/** What a hunk of the open file says it moves with it. */
export interface SpanLinks {
  dependents: string[];
  depends_on: string[];
  typed_inside: boolean;
  /** The moves it follows: a link update, whose reject may leave a link behind. */
  follows?: string[];
}

/** Everything the sequences do outside themselves: the engine's calls
 * (each `undefined` when it failed, the user told why) and the window. */
export interface Port {
  /** `POST /api/agent/hunks/{id}/decide`. */
  decide(id: string, body: { status: Status; reason?: string; dry_run?: boolean }): Promise<Decided | undefined>;
  /** `POST /api/review/decide`. */
  decideMany(body: { selection: Selection; status: Status; label?: string }): Promise<DecidedMany | undefined>;
  /** `POST /api/review/undo` (`undo`) or `/api/review/redo`: the engine's
   * newest step taken back, or the last undone done again. */
  takeStep(which: "undo" | "redo"): Promise<Stepped | undefined>;
  /** `GET /api/files/content`. */
  file(path: string): Promise<FileContent | undefined>;
  /** The editor view, once mounted. */
  view(): DecisionView | null;
  /** Hunk `id` of the open file, as the engine last described it. */
  span(id: string): SpanLinks | undefined;
  /** Takes in the engine's answer about a file (editor, tree row). */
  takeAnswer(file: FileContent): void;
  /** Shows hunks `add` as settling (out of the lists) and `remove` as the tree says again. */
  showSettling(add: string[], remove: string[]): void;
  /** Tells the other views of the note (the redline) that hunk `id` was
   * just decided here, shown before the engine's answer; whether one of
   * them is what the user sees (the editor is hidden), so that it shows
   * the decision first and the editor takes it in after that frame. */
  decidedShown?(id: string, status: "accepted" | "rejected"): boolean;
  /** The pending hunks `selection` names, with their files, as the window knows them. */
  selected(selection: Selection): [string, string][];
  /** Asks the user before a decision that moves more than its hunk. */
  ask(question: DecisionQuestion): Promise<DecisionAnswer>;
  /** Tells the user something. */
  tell(kind: "error" | "info", text: string): void;
  /** Resolves once the page is idle. */
  idle(): Promise<void>;
  /** Opens the next file with pending hunks after `path`, skipping the
   * hunks `settling` says were decided here; whether it did. */
  nextFile(path: string | null, settling: (id: string) => boolean): Promise<boolean>;
  /** Whether `path` has decisions or typing not yet saved. */
  unsaved(path: string): boolean;
  /** Opens `path` on hunk `id`. */
  open(path: string, id: string): Promise<void>;
  /** Lists the review and reloads the open file (after a decision across
   * files); with `show`, puts the cursor on that hunk of it in the same
   * update that shows the file reloaded, so that nothing the user picks
   * once they see it is taken from them. */
  refresh(show?: string): Promise<void>;
  /** Hunk `id` as people recognise it (its file and line). */
  label(id: string, file: FileContent): string;
  /** Hears how long showing the next hunk took (`moved`: whether there was one). */
  shown(started: number, moved: boolean, acrossFiles: boolean): void;
}

/** The moves of `moved` other than `id`'s own that changed a status. */
function carried(moved: HunkMove[], id: string) {
  return moved.filter((m) => m.hunk_id !== id && m.from !== m.to);
}

/** One window's decisions: see the module docs. */
export class Decisions {
  /** The bookkeeping of what was sent, answered and shown. */
  readonly ledger = new Ledger();

  constructor(private readonly port: Port) {}

  /** Whether hunk `id` was decided here and its file's row may still list it. */
  private readonly settling = (id: string) => this.ledger.isSettling(id);

  /** Resolves once the last decision sent is answered: a save or another
   * request waits for it, so it carries every decision made before it. */
  answered(): Promise<unknown> {
    return this.ledger.answered();
  }

  /** Decides `id`, shows the next hunk at once, and lets the engine
   * confirm. A decision that carries other hunks (or text typed inside the
   * hunk), or that asks why, is asked first. */
  async decide(status: Status, id: string, withReason = false) {
    const { port, ledger } = this;
    const view = port.view();
    if (!view) return;
    const span = port.span(id);
    const carries =
      (status === "rejected" && ((span?.dependents.length ?? 0) > 0 || span?.typed_inside || (span?.follows?.length ?? 0) > 0)) ||
      (status === "accepted" && (span?.depends_on.length ?? 0) > 0);
    if (status !== "pending" && (carries || withReason)) return this.decideAsked(status, id, withReason);
    const started = performance.now();
    const path = view.openPath;
    if (status !== "pending") {
      const next = view.neighbour(1, id) ?? view.neighbour(-1, id);
      const elsewhere = port.decidedShown?.(id, status) ?? false;
      if (elsewhere && view.markDecidedSoon) view.markDecidedSoon(id, status, next);
      else view.markDecided(id, status, next);
      port.shown(started, next !== null, false);
      this.settle(id, path);
      if (!next) this.leaveFile(path, status, () => port.nextFile(path, this.settling).then((moved) => moved && port.shown(started, true, true)));
    }
    ledger.decidedHere(id);
    const answered = ledger.answered().then(async () => {
      await view.flush().catch(() => undefined);
      return port.decide(id, { status });
    });
    const ticket = ledger.send(path ?? "", answered);
    const decided = await answered;
    // The next hunk is on screen already, or about to be: the engine's answer
    // (the same text, confirmed) is merged in once the page is idle, after
    // that frame, without asking for one more (a frame asked for between two
    // key presses makes the second wait for the display's next one).
    await port.idle();
    if (!decided) {
      this.unsettle((h) => h === id);
      if (!path) return;
      const file = await port.file(path);
      if (file) port.takeAnswer(file);
      return;
    }
    if (!ledger.isNewest(ticket)) return;
    // The tree takes every decision on the file so far: none is settling.
    this.unsettle((h, p) => h === id || p === decided.file.path);
    port.takeAnswer(decided.file);
    if (status === "pending" && port.view()?.openPath === decided.file.path) port.view()?.goTo(id);
  }

  /** Decides `id` after saying what it will do (the engine plans it first,
   * changing nothing) and taking the user's word: the hunks it carries, the
   * typing it takes out, and a reason for a reject. Not shown ahead: it
   * waits for the engine, since it moves more than the hunk on screen. */
  private async decideAsked(status: Status, id: string, withReason: boolean) {
    const { port, ledger } = this;
    await ledger.answered();
    await port.view()?.flush().catch(() => undefined);
    const plan = await port.decide(id, { status, dry_run: true });
    if (!plan) return;
    const path = plan.file.path;
    // A plan that moves nothing else, hides nothing and leaves no link (a
    // link update whose move is rejected too) needs no question.
    const plain = carried(plan.moved, id).length === 0 && plan.hidden_user_text.length === 0 && plan.links_left.length === 0;
    const answer = plain && !withReason ? {} : await port.ask({ hunkId: id, path, status, carried: carried(plan.moved, id), hidden: plan.hidden_user_text, linksLeft: plan.links_left, withReason });
    if (!answer) return;
    for (const m of plan.moved) ledger.decidedHere(m.hunk_id);
    const answered = port.decide(id, { status, reason: answer.reason });
    const ticket = ledger.send(path, answered);
    const done = await answered;
    if (!done) return;
    if (ledger.isNewest(ticket)) port.takeAnswer(done.file);
    const moved = carried(done.moved, id).length;
    port.tell("info", `${status === "rejected" ? "Rejected" : "Accepted"} ${port.label(id, done.file)}${moved > 0 ? ` and ${moved} hunk(s) with it` : ""}${answer.reason ? " (reason noted for the agent)" : ""}`);
    const view = port.view();
    if (view?.openPath !== path) return;
    const next = view.neighbour(1, id) ?? view.neighbour(-1, id);
    if (next) view.goTo(next);
    else this.leaveFile(path, status, () => port.nextFile(path, this.settling));
  }

  /** After the last hunk of `path` was decided (`status`): on to the next
   * file (`go`); when this one now has decisions to save, the user is told
   * so, so that a save that follows is not taken for this file's. */
  private leaveFile(path: string | null, status: Status, go: () => Promise<unknown>) {
    if (path !== null && (status === "accepted" || this.port.unsaved(path))) {
      this.port.tell("info", `Every hunk of ${path} is decided, not saved yet: Ctrl+Alt+S saves every file`);
    }
    void go();
  }

  /** Undoes the engine's newest step — a decision, a pattern, a run's
   * "Reject all pending", an apply, a rollback — taking back exactly the
   * hunks it moved. It goes in turn after every decision sent before the
   * key, so the step it takes is the last one made here; the engine keeps
   * the history, so it survives a reload. */
  undo() {
    return this.takeStep("undo");
  }

  /** Does again the step undone last. */
  redo() {
    return this.takeStep("redo");
  }

  private async takeStep(which: "undo" | "redo") {
    const { port, ledger } = this;
    const answered = ledger.answered().then(async () => {
      await port.view()?.flush().catch(() => undefined);
      return port.takeStep(which);
    });
    ledger.sendAcross(answered);
    const done = await answered;
    if (!done) return;
    const hunks = done.moved.length;
    const left = done.left.length > 0 ? `; ${done.left.length.toLocaleString()} changed since, left as they are` : "";
    const size = done.rollback ? "" : ` (${hunks.toLocaleString()} hunk(s) in ${done.files.length.toLocaleString()} file(s)${left})`;
    port.tell("info", `${which === "undo" ? "Undid" : "Redid"}: ${done.label}${size}`);
    const moved = new Set(done.moved.map((m) => m.hunk_id));
    this.unsettle((h) => moved.has(h));
    // One hunk: shown where it is, as a decision's undo always was.
    const [only] = done.moved;
    const one = hunks === 1 && done.files.length === 1;
    const here = one && port.view()?.openPath === done.files[0];
    await port.refresh(here ? only.hunk_id : undefined);
    if (one && !here) await port.open(done.files[0], only.hunk_id);
  }

  /** Decides many hunks at once as one step of the engine's history
   * (`label` says which, for the message and the step): a pattern, every
   * unflagged hunk of a job. They leave the lists at once, and come back
   * if the engine refuses. */
  async decideMany(selection: Selection, status: "accepted" | "rejected", label: string) {
    const { port, ledger } = this;
    await ledger.answered();
    await port.view()?.flush().catch(() => undefined);
    const ids = port.selected(selection);
    ledger.settleAll(ids);
    port.showSettling(
      ids.map(([id]) => id),
      [],
    );
    await this.sendMany(selection, status, label);
    const taken = new Set(ids.map(([id]) => id));
    this.unsettle((id) => taken.has(id));
  }

  /** Rejects `hunks` as one step, after every decision before it (the
   * one-click restore of what another program cut down). */
  async rejectAll(hunks: string[]): Promise<DecidedMany | undefined> {
    await this.ledger.answered();
    const answered = this.port.decideMany({ selection: { kind: "hunks", hunk_ids: hunks }, status: "rejected", label: "what another program cut down (restored)" });
    this.ledger.sendAcross(answered);
    return answered;
  }

  private async sendMany(selection: Selection, status: "accepted" | "rejected", label: string) {
    const answered = this.port.decideMany({ selection, status, label });
    this.ledger.sendAcross(answered);
    const done = await answered;
    if (!done) return undefined;
    this.port.tell("info", `${status === "accepted" ? "Accepted" : "Rejected"}: ${label} (${done.moved.toLocaleString()} hunks in ${done.files.toLocaleString()} files)`);
    await this.port.refresh();
    return done;
  }

  /** Counts hunk `id` of `path` as settling, until the engine's answer
   * takes it out of the tree; shown with the others of its batch when the
   * page is next idle. */
  private settle(id: string, path: string | null) {
    if (!this.ledger.settle(id, path ?? "")) return;
    void this.port.idle().then(() => this.port.showSettling(this.ledger.showSettling(), []));
  }

  /** Lets the hunks `which` picks show as the tree says again. */
  private unsettle(which: (id: string, path: string) => boolean) {
    const gone = this.ledger.unsettle(which);
    if (gone.length > 0) this.port.showSettling([], gone);
  }
}
