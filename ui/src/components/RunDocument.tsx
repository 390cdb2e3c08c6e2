// A run read as one document: every note with its pending changes, rendered
// one after another with the changes marked, only the notes near the screen
// in the page (a vault-wide run is a thousand notes), and each change
// decided where it is read. Export writes the whole of it as one
// HTML file for someone who has no Redline.

import { computed } from "@preact/signals";
import { memo } from "preact/compat";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api } from "../api/client";
import type { FileContent } from "../api/types";
import { flagLabel } from "../flags";
import { mayHoldHtml } from "../redline/markdown";
import { beforeHunks, redline } from "../redline/mark";
import { drawEmbeds } from "../redline/embeds";
import { hoverIntent, inMargin } from "../redline/margin";
import { sanitize } from "../redline/safe";
import { openPath } from "../state/navigation";
import { decideMany, undoDecision } from "../state/review";
import { attempt, hunkInfo, overlay, reviewItems, reviewJobs, tell, tree } from "../state/store";
import { Overlay } from "./Overlay";

/** A note drawn as its redline, sanitized; or why it could not be. */
function drawn(file: FileContent): string {
  try {
    const note = beforeHunks(file.text, file.hunks);
    return sanitize(redline(note), mayHoldHtml(note.before) || mayHoldHtml(note.after));
  } catch (e) {
    return `<p class="redline-error">This note could not be rendered (${sanitize(String(e))}).</p>`;
  }
}

/** The notes with pending changes of job `jobId`, in the review's order. */
function notesOf(jobId: string | null): string[] {
  const info = hunkInfo.value;
  const paths = new Set<string>();
  for (const item of reviewItems.value) if (info.get(item.hunk)?.job_id === jobId) paths.add(item.path);
  return [...paths];
}

/** The changed files' review states by path (a thousand notes each
 * looking theirs up in the list was a million comparisons a refresh). */
const statesByPath = computed(() => new Map(tree.value.map((e) => [e.path, e.state])));

/** How far beyond the screen notes are drawn, above and below (px): half
 * a screen, so that a fast scroll finds the next note drawn; a whole one
 * was a tenth more work a frame (scrolling's slowest frames 21 ms, not 20). */
const AHEAD = 400;

/** The height a note not drawn yet is given: its header and a few lines. */
const ESTIMATE = 240;

/** How many notes past the drawn ones a read takes along, below (and a
 * quarter of it above): a note scrolled to is read already. */
const READ_AHEAD = 40;

/** A note as read, for the review state it was read in (`version`): drawn
 * the first time it is shown, and not read again when it is scrolled away
 * and back. */
interface Read {
  version: string;
  file: FileContent | null;
  /** Why it could not be read. */
  error?: string;
  html?: string;
}

/** The most notes one read takes (the engine's limit). */
const MAX_READ = 200;

/** The notes read so far, by path. */
const reads = new Map<string, Read>();

/** A note's review state as the engine lists it: a decision changes it,
 * and then the note is read again. */
const versionOf = (path: string) => JSON.stringify(statesByPath.value.get(path) ?? null);

/** The redline of a note as read (drawn once). */
function htmlOf(read: Read): string {
  read.html ??= read.file ? drawn(read.file) : `<p class="redline-error">This note could not be read (${sanitize(read.error ?? "unknown")}).</p>`;
  return read.html;
}

/** One note of the document, drawn from its read (only notes near the
 * screen are in the page); its height watched by `sizes` as it is laid
 * out. */
const Note = memo(function Note({ path, read, sizes }: { path: string; read: Read | undefined; sizes: ResizeObserver }) {
  const host = useRef<HTMLElement>(null);
  const pending = statesByPath.value.get(path)?.pending_hunks.length ?? 0;
  const html = read ? htmlOf(read) : null;
  useEffect(() => {
    if (html !== null && host.current) void drawEmbeds(host.current);
  }, [html]);
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    sizes.observe(el);
    return () => sizes.unobserve(el);
  }, []);
  return (
    <section class="run-note" data-testid="run-note" data-path={path} ref={host}>
      <header class="run-note-head">
        <button class="link" onClick={() => void openPath(path).then(() => (overlay.value = "none"))} title="Open this note in the editor">
          {path}
        </button>
        <span class="muted"> · {pending} pending</span>
      </header>
      {html === null ? <div class="run-note-placeholder" /> : <article class="redline-note" dangerouslySetInnerHTML={{ __html: html }} />}
    </section>
  );
});

/** The notes to read next for a window `[first, last)` of `paths`: none
 * while the window and the half batch below it are read; else those in
 * it, then those below it and above it, whose read is missing or older
 * than their review state, a batch at most (a note a call was a call a
 * frame while scrolling). */
function toRead(paths: readonly string[], first: number, last: number): string[] {
  const stale = (p: string) => reads.get(p)?.version !== versionOf(p);
  if (!paths.slice(first, last + READ_AHEAD / 2).some(stale) && !paths.slice(Math.max(0, first - READ_AHEAD / 8), first).some(stale)) return [];
  const near = [...paths.slice(first, last), ...paths.slice(last, last + READ_AHEAD), ...paths.slice(Math.max(0, first - READ_AHEAD / 4), first)];
  return near.filter(stale).slice(0, READ_AHEAD);
}

/** The notes of `paths` to draw for a screen at `top` of `height` px (with
 * [`AHEAD`] px either side), and the room the others take above and below,
 * each note at its measured height or [`ESTIMATE`]. */
function windowOf(paths: readonly string[], heights: ReadonlyMap<string, number>, top: number, height: number) {
  let [first, last, y, above] = [paths.length, paths.length, 0, 0];
  for (let k = 0; k < paths.length; k++) {
    const h = heights.get(paths[k]) ?? ESTIMATE;
    if (first === paths.length && y + h > top - AHEAD) [first, above] = [k, y];
    y += h;
    if (first !== paths.length && y > top + height + AHEAD) {
      last = k + 1;
      break;
    }
  }
  let below = 0;
  for (let k = last; k < paths.length; k++) below += heights.get(paths[k]) ?? ESTIMATE;
  return { first, last, above, below };
}

/** The job shown in the document: the one in the sidebar, else the review's first. */
export function RunDocument({ jobId }: { jobId: string | null }) {
  // A note stays where it is read once its changes are decided: the
  // document does not move under the reader.
  const shown = useRef<string[]>([]);
  const paths = useMemo(() => {
    const now = notesOf(jobId);
    const known = new Set(shown.current);
    shown.current = [...shown.current, ...now.filter((p) => !known.has(p))];
    return shown.current;
  }, [jobId, reviewItems.value, hunkInfo.value]);
  const job = reviewJobs.value.find((j) => j.job_id === jobId);
  const root = useRef<HTMLDivElement>(null);
  // Only the notes near the screen are in the page (a thousand notes were
  // a thousand sections to lay out before the first one showed): the rest
  // are room above and below, at their measured heights.
  const heights = useRef(new Map<string, number>());
  const pathsNow = useRef(paths);
  pathsNow.current = paths;
  const drawnWindow = useRef({ first: 0, last: 0 });
  const [screen, setScreen] = useState({ top: 0, height: 800 });
  const [, remeasured] = useState(0);
  // One watch over the notes in the page: a note's height, as it is laid
  // out, places the ones after it.
  const sizes = useMemo(() => {
    let queued = false;
    return new ResizeObserver((seen) => {
      let changed = false;
      for (const { target } of seen) {
        const el = target as HTMLElement;
        const path = el.dataset.path ?? "";
        if (heights.current.get(path) === el.offsetHeight) continue;
        heights.current.set(path, el.offsetHeight);
        changed = true;
      }
      if (!changed || queued) return;
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        remeasured((n) => n + 1);
      });
    });
  }, []);
  useEffect(() => () => sizes.disconnect(), []);
  useEffect(() => {
    const el = root.current;
    if (!el) return;
    let queued = false;
    const look = () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        // A frame whose screen still shows the same notes draws nothing.
        const [top, height] = [el.scrollTop, el.clientHeight];
        const now = windowOf(pathsNow.current, heights.current, top, height);
        if (now.first === drawnWindow.current.first && now.last === drawnWindow.current.last) return;
        setScreen({ top, height });
      });
    };
    look();
    el.addEventListener("scroll", look, { passive: true });
    const watch = new ResizeObserver(look);
    watch.observe(el);
    return () => {
      el.removeEventListener("scroll", look);
      watch.disconnect();
    };
  }, []);
  const shownNow = windowOf(paths, heights.current, screen.top, screen.height);
  drawnWindow.current = shownNow;
  // The notes near the screen read in one call, then the next ones as the
  // screen moves (a note a call was a thousand calls, each redrawing).
  const reading = useRef(false);
  const [, wereRead] = useState(0);
  useEffect(() => {
    if (reading.current) return;
    const want = toRead(paths, shownNow.first, shownNow.last);
    if (want.length === 0) return;
    reading.current = true;
    const versions = want.map(versionOf);
    void attempt(`Reading ${want.length} note(s)`, () => api.files({ paths: want })).then((got) => {
      reading.current = false;
      want.forEach((path, k) => {
        const read = got?.[k];
        reads.set(path, { version: versions[k], file: read?.file ?? null, error: read ? (read.error ?? undefined) : "the read failed" });
      });
      wereRead((n) => n + 1);
    });
  });
  const [hovered, setHovered] = useState<{ id: string; top: number; left: number } | null>(null);
  const pending = hovered ? hunkInfo.value.has(hovered.id) : false;
  const hoveredNow = useRef(hovered?.id ?? null);
  hoveredNow.current = hovered?.id ?? null;
  const onHover = useMemo(
    () => hoverIntent(() => hoveredNow.current, (id, mark) => root.current && setHovered({ id, ...inMargin(mark, root.current) })),
    [],
  );
  const decideHere = async (status: "accepted" | "rejected") => {
    if (!hovered) return;
    await decideMany({ kind: "hunks", hunk_ids: [hovered.id] }, status, `a change in ${hunkInfo.value.get(hovered.id)?.path ?? "a note"}`);
  };
  return (
    <Overlay class="run-document" label="The run as one document" testid="run-document" close={() => (overlay.value = "none")}>
      <header class="run-document-head">
        <strong>{job?.instruction ?? "Changes"}</strong>
        <span class="muted" data-testid="run-document-count">
          {" "}
          · {paths.length.toLocaleString()} note(s) with changes
        </span>
        <span class="spacer" />
        <button data-testid="run-document-export" onClick={() => void exportRun(job?.instruction ?? "Changes", job?.source ?? null, paths)} title="One HTML file of these changes as rendered, for someone who has no Redline">
          Export…
        </button>
        <button onClick={() => (overlay.value = "none")}>Close</button>
      </header>
      <div
        class="run-document-body"
        ref={root}
        onMouseOver={onHover}
        onClick={(e) => {
          const link = (e.target as Element).closest("a[href]");
          if (link) e.preventDefault();
        }}
      >
        {hovered && (
          <div class="redline-bar" data-testid="run-document-bar" data-for={hovered.id} style={{ top: `${hovered.top}px`, left: `${hovered.left}px` }}>
            {flagLabel(hunkInfo.value.get(hovered.id)?.flags) && <span class="flag">{flagLabel(hunkInfo.value.get(hovered.id)?.flags)}</span>}
            {pending && (
              <>
                <button data-testid="run-document-accept" onClick={() => void decideHere("accepted")}>
                  Accept
                </button>
                <button data-testid="run-document-reject" onClick={() => void decideHere("rejected")}>
                  Reject
                </button>
              </>
            )}
            <button onClick={() => void undoDecision()} title="Undo the last decision (Alt+U)">
              Undo
            </button>
          </div>
        )}
        <div style={{ height: `${shownNow.above}px` }} />
        {paths.slice(shownNow.first, shownNow.last).map((path) => (
          <Note key={path} path={path} read={reads.get(path)} sizes={sizes} />
        ))}
        <div style={{ height: `${shownNow.below}px` }} />
        {paths.length === 0 && <p class="muted">Nothing of this run is left to review.</p>}
      </div>
    </Overlay>
  );
}

/** Writes the run's changes, as rendered, into one self-contained HTML
 * file: each note's path, who proposed the change, what is still pending,
 * and the redline itself, with its styles inline. */
async function exportRun(instruction: string, source: string | null, paths: string[]) {
  const sections: string[] = [];
  for (let k = 0; k < paths.length; k += MAX_READ) {
    const got = await attempt("Reading the notes", () => api.files({ paths: paths.slice(k, k + MAX_READ) }));
    if (!got) return;
    for (const { path, file, error } of got) {
      if (!file) {
        tell("error", `Reading ${path}: ${error ?? "it could not be read"}`);
        return;
      }
      const pending = file.hunks.filter((h) => h.status === "pending").length;
      const decided = file.hunks.length - pending;
      sections.push(`<section><h2 class="path">${escapeHtml(path)}</h2><p class="meta">${pending} change(s) pending, ${decided} decided</p><article>${drawn(file)}</article></section>`);
    }
  }
  const title = `Redline: ${instruction}`;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>${EXPORT_CSS}</style></head><body><header><h1>${escapeHtml(instruction)}</h1><p class="meta">Proposed by ${escapeHtml(source ?? "the agent")} · exported ${new Date().toLocaleString()} · ${paths.length} note(s)</p></header>${sections.join("")}</body></html>`;
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([html], { type: "text/html" }));
  a.download = `redline-${instruction.replace(/[^\p{L}\p{N}]+/gu, "-").slice(0, 40).replace(/^-|-$/g, "") || "changes"}.html`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  tell("info", `Exported ${paths.length} note(s) as ${a.download}`);
}

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] as string);

/** The exported file's styles: the redline's marks, readable on paper too. */
const EXPORT_CSS = `body{font:15px/1.6 system-ui,sans-serif;max-width:48em;margin:2em auto;padding:0 1em;color:#1f2328}
h2.path{font:600 13px ui-monospace,monospace;border-top:1px solid #d0d7de;padding-top:1em;margin-top:2em}
.meta{color:#656d76;font-size:13px}del.rl-del{background:#ffebe9;color:#82071e;text-decoration:line-through}
ins.rl-ins{background:#dafbe1;color:#116329;text-decoration:underline dotted}ins.rl-own{text-decoration:underline #2f6fed 2px}.rl-del-block{background:#fff5f5}.rl-ins-block{background:#f0fff4}
.rl-retarget{border-bottom:2px solid #0969da}table{border-collapse:collapse}th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left}
pre{background:#f6f8fa;padding:8px;overflow:auto}blockquote{border-left:3px solid #d0d7de;margin:0;padding:0 1em;color:#656d76}
.callout{border-left-color:#0969da;background:#f6f8fa;color:inherit}.callout-title{display:block;font-weight:600}.tag,.wikilink{color:#0969da}
.hljs-keyword,.hljs-built_in,.hljs-type{color:#0550ae}.hljs-string,.hljs-regexp{color:#0a3069}.hljs-number,.hljs-literal{color:#953800}.hljs-comment{color:#6e7781;font-style:italic}`;
