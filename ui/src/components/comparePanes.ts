// The three panes of a checkpoint's compare, as read-only CodeMirror views:
// loaded only when a compare is shown.

import { wordDiff } from "../editor/words";
import { EditorState, type Range } from "@codemirror/state";
import { Decoration, EditorView } from "@codemirror/view";
import type { ThreeWay } from "../api/types";

const readOnly = [EditorState.readOnly.of(true), EditorView.editable.of(false), EditorView.lineWrapping];

const changedLine = Decoration.line({ class: "cm-changed-line" });
const addedWord = Decoration.mark({ class: "cm-changed-word" });
const removedWord = Decoration.mark({ class: "cm-removed-word" });

/** Marks, in a pane's text, the ranges `spans` (from, to) and the lines they touch. */
function marks(spans: [number, number][], mark: Decoration) {
  return EditorView.decorations.of((view) => {
    const doc = view.state.doc;
    const ranges: Range<Decoration>[] = [];
    const lines = new Set<number>();
    for (const [from, to] of spans) {
      if (to > from) ranges.push(mark.range(from, to));
      for (let n = doc.lineAt(from).number; n <= doc.lineAt(Math.max(from, to - (to > from ? 1 : 0))).number; n++) lines.add(n);
    }
    for (const n of lines) ranges.push(changedLine.range(doc.line(n).from));
    return Decoration.set(ranges, true);
  });
}

/** Shows `three` in `hosts` (before the run, as proposed, now; without
 * `proposal`, the checkpoint's text and now): the later panes mark what
 * differs from the first, word by word; the first marks what any of them
 * took out. Returns what closes the views. */
export function showPanes(three: ThreeWay, hosts: (HTMLElement | null)[], proposal: boolean): () => void {
  const base = three.checkpoint_base ?? "";
  const texts = proposal ? [base, three.agent_proposed ?? "", three.current_file ?? ""] : [base, three.current_file ?? ""];
  const changes = texts.slice(1).map((t) => wordDiff(base, t));
  const extensions = [
    marks(
      changes.flat().map((c) => [c.fromA, c.toA]),
      removedWord,
    ),
    ...changes.map((cs) =>
      marks(
        cs.map((c) => [c.fromB, c.toB]),
        addedWord,
      ),
    ),
  ];
  const views = texts.map((doc, i) => new EditorView({ doc, extensions: [readOnly, extensions[i]], parent: hosts[i]! }));
  return () => views.forEach((v) => v.destroy());
}
