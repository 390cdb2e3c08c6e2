// The window's record of the decisions it sends, as one state machine with
// named transitions: the order they go in, which answer is the newest for a
// file, which hunks are shown decided before the tree says so, and which
// feed words are echoes of them. What undo takes back is the engine's
// (its decision history), never the window's. Each ordering bug the
// review UI had was a wrong step between these; here each step is one
// method, unit-tested on its own (ui/unit/).
//
// It holds no signals and calls no API: `state/decisions.ts` drives it.

/** A decision sent on a file: only the newest one's answer is taken. */
export type Ticket = { path: string; n: number };

/** The bookkeeping of one window's decisions. */
export class Ledger {
  /** The engine's answer to the last decision sent: each decision waits for
   * it, so each answer carries every decision before it, and an undo never
   * overtakes the decision it undoes. */
  private last: Promise<unknown> = Promise.resolve();
  /** Decisions sent per file. */
  private sentFor = new Map<string, number>();
  /** Hunks decided here whose word from the feed has not come. */
  private echoes = new Set<string>();
  /** Hunks decided here that the tree may still list as pending, with
   * their file. */
  private settlingIn = new Map<string, string>();
  /** Settling hunks not yet shown as such (shown together at the page's
   * next idle moment). */
  private unshown: string[] = [];

  // Sending.

  /** Resolves once the last decision sent is answered. */
  answered(): Promise<unknown> {
    return this.last;
  }

  /** Sends a decision on `path`: `answer` is its answer, which the next
   * decision waits for. Returns its ticket. */
  send(path: string, answer: Promise<unknown>): Ticket {
    const n = (this.sentFor.get(path) ?? 0) + 1;
    this.sentFor.set(path, n);
    this.last = answer;
    return { path, n };
  }

  /** Sends a decision across files (a pattern, a selection, an undo or
   * redo of the engine's history): `answer` is its answer, which the next
   * decision waits for. Every earlier answer is stale from then on: the
   * window reloads what it shows once this one is answered. */
  sendAcross(answer: Promise<unknown>) {
    for (const [path, n] of this.sentFor) this.sentFor.set(path, n + 1);
    this.last = answer;
  }

  /** Whether `ticket`'s answer is the one to take: no decision on its file
   * was sent after it (a later answer carries this one, and an older one
   * would bring hunks decided since back as pending). */
  isNewest(ticket: Ticket): boolean {
    return this.sentFor.get(ticket.path) === ticket.n;
  }

  // The feed's word.

  /** Notes that hunk `id` is decided here: the feed's word for it is an
   * echo, which needs no refresh. */
  decidedHere(id: string) {
    this.echoes.add(id);
  }

  /** Hears the feed's word for hunk `id`: whether it was an echo of a
   * decision made here (heard once). */
  isEcho(id: string): boolean {
    return this.echoes.delete(id);
  }

  // Settling: decided here, not yet out of the tree.

  /** Counts hunk `id` of `path` as settling until an answer for its file
   * is taken. Returns whether it is the first of a batch to show (the
   * caller then shows the batch at the page's next idle moment). */
  settle(id: string, path: string): boolean {
    this.settlingIn.set(id, path);
    return this.unshown.push(id) === 1;
  }

  /** Counts many hunks (id and file) as settling, shown at once by the
   * caller (a pattern leaves the list in one step). */
  settleAll(hunks: [string, string][]) {
    for (const [id, path] of hunks) this.settlingIn.set(id, path);
  }

  /** The batch to show as settling now: those still settling. */
  showSettling(): string[] {
    const shown = this.unshown.filter((id) => this.settlingIn.has(id));
    this.unshown = [];
    return shown;
  }

  /** Lets the hunks `which` picks show as the tree says again; returns them. */
  unsettle(which: (id: string, path: string) => boolean): string[] {
    const gone = [...this.settlingIn].filter(([id, path]) => which(id, path)).map(([id]) => id);
    for (const id of gone) this.settlingIn.delete(id);
    return gone;
  }

  /** Whether hunk `id` is settling (moving on skips it). */
  isSettling(id: string): boolean {
    return this.settlingIn.has(id);
  }
}
