// The editor on the open file's working buffer, its toolbar, and the
// conflict card when another program changed the file under Redline's edits.

import { computed, effect } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import type { FileContent } from "../api/types";
import { clip } from "../clip";
import { flagLabel } from "../flags";
import { editorBindings } from "../shortcuts";
import { useLoaded } from "./loaded";
import { reviewListed } from "../state/listing";
import { bindEditor, step } from "../state/navigation";
import { decide, pendingInView } from "../state/review";
import { acceptAllInFile, markUnsynced, resolve, save, sendEdit } from "../state/saving";
import { readsRendered, toggleRendered } from "../state/redline";
import { currentHunk, dirtyPaths, hunkInfo, openFile, reviewJobs } from "../state/store";
import { listings } from "../state/tree";

/** No hunk of the open file to act on (the current one may be another
 * file's, off-screen): bound to the buttons' `disabled`, so moving between
 * hunks updates two attributes instead of rendering the pane again. */
const noHunk = computed(() => {
  const id = currentHunk.value;
  return !id || !pendingInView(id);
});

/** Resolves once the file tree's first folder and the review's first rows
 * are drawn (or after a second at most): the editor's code, most of the
 * page's, loads after them, so the window's first paint does not wait for
 * it (a file opened sooner waits). */
function firstPaint() {
  return new Promise<void>((shown) => {
    const at = setTimeout(shown, 1000);
    const tree = new Promise<void>((listed) => {
      const stop = effect(() => {
        if (!listings.value.has("")) return;
        queueMicrotask(() => stop());
        listed();
      });
    });
    void Promise.all([tree, reviewListed()]).then(() => {
      clearTimeout(at);
      requestAnimationFrame(() => setTimeout(shown, 0));
    });
  });
}

/** The editor's code, its libraries first, one at a time: a module graph
 * is evaluated in one task, and the whole editor at once (CodeMirror with
 * Markdown, search and merge) held the page for 60–80 ms. Each library
 * evaluated on its own is a shorter task; the controller then finds them
 * evaluated. */
async function loadEditorCode() {
  await import("@codemirror/state");
  await import("@codemirror/view");
  await import("@codemirror/language");
  await import("@codemirror/lang-markdown");
  await import("@codemirror/merge");
  await import("@codemirror/search");
  await import("@codemirror/commands");
  return import("../editor/controller");
}

/** The flags the engine raised on a hunk, as the review list shows them. */
function hunkFlag(id: string) {
  const flags = hunkInfo.peek().get(id)?.flags;
  const label = flagLabel(flags);
  return label && flags ? { label, reasons: flags.map((f) => f.reason).join("\n") } : null;
}

/** A hunk's box is headed by its job's request, cut short. */
function hunkLabel(jobId: string | null) {
  const request = reviewJobs.peek().find((j) => j.job_id === jobId)?.instruction;
  if (!request) return jobId ? "Proposed change" : "Change";
  return clip(request, 48);
}

/** The redline view, its code (the Markdown renderer, the sanitizer, the
 * comparison) loaded the first time a note is read rendered: the window's
 * first paint does not wait for it. */
function Rendered({ file }: { file: FileContent }) {
  const view = useLoaded(() => import("./RedlineView"));
  return view ? <view.RedlineView file={file} /> : <div class="redline" data-testid="redline-loading" />;
}

export function EditorPane() {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let live = true;
    let controller: import("../editor/controller").EditorController | undefined;
    void firstPaint()
      .then(loadEditorCode)
      .then(({ EditorController }) => {
        if (!live) return;
        controller = new EditorController(host.current!, {
          decide: (id, status) => void decide(status, id),
          label: hunkLabel,
          flag: hunkFlag,
          send: sendEdit,
          unsynced: markUnsynced,
          current: (id) => {
            if (currentHunk.value !== id) currentHunk.value = id;
          },
        }, editorBindings());
        bindEditor(controller);
        // A job's request may be known only after its hunks are drawn.
        // So may its flags, with the review's listing.
        stopRelabel = effect(() => {
          void reviewJobs.value;
          void hunkInfo.value;
          controller?.relabel();
        });
      });
    let stopRelabel: (() => void) | undefined;
    return () => {
      live = false;
      stopRelabel?.();
      if (!controller) return;
      bindEditor(null);
      controller.view.destroy();
    };
  }, []);

  const file = openFile.value;
  const pending = file?.state.pending_hunks.length ?? 0;
  const dirty = file ? dirtyPaths.value.has(file.path) : false;
  // A note read as a redline: rendered, its changes marked in place.
  const rendered = readsRendered(file);
  return (
    <div class="editor-pane">
      <div class="editor-bar">
        <span class="path" data-testid="open-path" data-path={file?.path}>
          {file ? file.path : "No file open"}
          {dirty && (
            <span class="dirty" data-testid="dirty-marker" title="Unsaved changes">
              {" "}
              ●
            </span>
          )}
        </span>
        <span class="spacer" />
        {file && (
          <>
            <span class="muted" data-testid="file-pending">
              {pending} pending
            </span>
            {!file.binary && (
              <button
                class={rendered ? "toggled" : undefined}
                aria-pressed={rendered}
                data-testid="redline-toggle"
                onClick={() => toggleRendered(file.path)}
                title={rendered ? "Show the source (Alt+R)" : "Read it rendered, each change marked in place (Alt+R)"}
              >
                {rendered ? "Source" : "Redline"}
              </button>
            )}
            <button onClick={() => void step(-1)} title="Previous hunk (Alt+K)" aria-label="Previous hunk">
              ↑
            </button>
            <button onClick={() => void step(1)} title="Next hunk (Alt+J)" aria-label="Next hunk" data-testid="next-hunk">
              ↓
            </button>
            <button onClick={() => void decide("accepted")} disabled={noHunk} data-testid="accept-current" title="Accept the current hunk (Alt+Y)">
              Accept
            </button>
            <button onClick={() => void decide("rejected")} disabled={noHunk} data-testid="reject-current" title="Reject the current hunk (Alt+N)">
              Reject
            </button>
            <button onClick={() => void decide("rejected", undefined, true)} disabled={noHunk} data-testid="reject-why" title="Reject the current hunk and say why (Alt+Shift+N)">
              Reject…
            </button>
            <button onClick={() => void acceptAllInFile()} disabled={pending === 0} data-testid="accept-all-file" title="Accept every pending hunk in this note, as one step; nothing is written until you save (Alt+A)">
              Accept all
            </button>
            <button class={dirty ? "primary" : undefined} disabled={!dirty} onClick={() => void save()} data-testid="save" title={dirty ? "Save (Ctrl+S)" : "Nothing to save"}>
              Save
            </button>
          </>
        )}
      </div>
      {file?.state.op && (
        <div class="file-op" role="status" data-testid="file-op" data-status={file.state.op.status}>
          {file.state.op.op.kind === "move" ? (
            <span>
              Moved from <strong>{file.state.op.from}</strong> to <strong>{file.state.op.op.to}</strong>
            </span>
          ) : (
            <span>
              <strong>{file.state.op.from}</strong> is deleted
            </span>
          )}
          <span class="muted"> · {file.state.op.status}</span>
          <span class="spacer" />
          {file.state.op.status === "pending" ? (
            <>
              <button data-testid="file-op-accept" onClick={() => void decide("accepted", file.state.op!.hunk_id)}>
                Accept
              </button>
              <button data-testid="file-op-reject" onClick={() => void decide("rejected", file.state.op!.hunk_id)}>
                Reject
              </button>
            </>
          ) : (
            <button data-testid="file-op-undo" onClick={() => void decide("pending", file.state.op!.hunk_id)}>
              Undo
            </button>
          )}
        </div>
      )}
      {file?.state.conflict && (
        <div class="conflict" role="alert" data-testid="conflict">
          <div class="conflict-head">
            <strong>{file.path} changed on disk</strong> while Redline holds {pending > 0 ? "pending hunks" : "unsaved edits"} for it. Nothing was lost: pick the version to keep; the other goes into a checkpoint.
            <span class="spacer" />
            <button data-testid="keep-mine" onClick={() => void resolve("mine")}>
              Keep mine
            </button>
            <button data-testid="keep-theirs" onClick={() => void resolve("theirs")}>
              Take the disk's
            </button>
          </div>
          <details>
            <summary>The version on disk</summary>
            <pre class="disk-text" data-testid="disk-text">
              {file.disk_text ?? "(the file was deleted)"}
            </pre>
          </details>
        </div>
      )}
      <div class="editor-host" ref={host} hidden={!file || file.binary || rendered} />
      {rendered && file && <Rendered file={file} />}
      {file?.binary && (
        <div class="editor-empty" data-testid="binary-file">
          {file.path.split("/").pop()} is not text: it moves or goes as a whole, and its links follow it.
        </div>
      )}
      {!file && <div class="editor-empty">Open a file from the tree, or run the agent and review its hunks here.</div>}
    </div>
  );
}
