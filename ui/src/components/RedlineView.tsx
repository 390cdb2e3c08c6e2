// The open note read as a redline: rendered as Obsidian renders it, every
// pending change marked where it stands (removed words struck, inserted
// ones marked), and decided there — by the bar over the change under the
// pointer or the current one, or by the same keys as the source view.

import { effect } from "@preact/signals";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type { FileContent } from "../api/types";
import { flagLabel } from "../flags";
import { mayHoldHtml } from "../redline/markdown";
import { chunk } from "../redline/chunks";
import { beforeHunks, redline } from "../redline/mark";
import { drawEmbeds, resolve } from "../redline/embeds";
import { hoverIntent, inMargin } from "../redline/margin";
import { sanitize } from "../redline/safe";
import { openPath } from "../state/navigation";
import { decidedNow } from "../state/redline";
import { decide, decideCurrentPattern, undoDecision } from "../state/review";
import { currentHunk, hunkInfo, tell } from "../state/store";

/** The note as sanitized HTML, or why it could not be rendered. */
function render(file: FileContent): { html: string } | { error: string } {
  try {
    const note = beforeHunks(file.text, file.hunks);
    return { html: sanitize(redline(note), mayHoldHtml(note.before) || mayHoldHtml(note.after)) };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

/** Opens the note a wikilink names (see `resolve`). */
async function follow(target: string) {
  const path = await resolve(target);
  if (path) await openPath(path);
  else tell("info", `No note named “${target.split("#")[0].trim()}”`);
}

export function RedlineView({ file }: { file: FileContent }) {
  const host = useRef<HTMLDivElement>(null);
  const shown = useMemo(() => render(file), [file.text, file.hunks]);
  // The change the bar is over: the one under the pointer, else the current one.
  const [hovered, setHovered] = useState<string | null>(null);
  const [bar, setBar] = useState<{ top: number; left: number } | null>(null);
  const target = hovered ?? currentHunk.value;
  const hoveredNow = useRef(hovered);
  hoveredNow.current = hovered;
  const onHover = useMemo(() => hoverIntent(() => hoveredNow.current, setHovered), []);
  const pending = target !== null && file.hunks.some((h) => h.hunk_id === target && h.status === "pending");

  // The current hunk's marks stand out, and come into view when it changes.
  useEffect(
    () =>
      effect(() => {
        const id = currentHunk.value;
        const root = host.current;
        if (!root) return;
        for (const el of root.querySelectorAll(".rl-current")) el.classList.remove("rl-current");
        if (!id) return;
        const marks = root.querySelectorAll(`[data-hunk="${CSS.escape(id)}"]`);
        for (const el of marks) el.classList.add("rl-current");
        marks[0]?.scrollIntoView({ block: "nearest" });
      }),
    [shown],
  );

  // A long note in chunks, before anything looks for its marks.
  const article = useRef<HTMLElement>(null);
  useLayoutEffect(() => {
    if (article.current) chunk(article.current);
  }, [shown]);

  const patched = useRef(decidedNow.peek());
  // A decision made here shows at once (within the frame): accepted, its
  // struck words go and its inserted ones read as plain text; rejected, the
  // other way round. The engine's answer draws the note again.
  useEffect(
    () =>
      effect(() => {
        const decided = decidedNow.value;
        const root = host.current;
        // Once: a note drawn again after it (from a refusal, say) is the engine's.
        if (!decided || !root || decided === patched.current) return;
        patched.current = decided;
        const marks = root.querySelectorAll<HTMLElement>(`[data-hunk="${CSS.escape(decided.id)}"]`);
        const [gone, kept] = decided.status === "accepted" ? ["rl-del", "rl-ins"] : ["rl-ins", "rl-del"];
        for (const el of marks) {
          if (el.classList.contains(gone) || el.classList.contains(`${gone}-block`)) el.remove();
          else if (el.classList.contains(kept)) el.replaceWith(...el.childNodes);
          else el.classList.remove(`${kept}-block`, "rl-current");
          el.removeAttribute("data-hunk");
        }
      }),
    [shown],
  );

  // Embeds drawn from the vault once the note is.
  useEffect(() => {
    if (host.current) void drawEmbeds(host.current);
  }, [shown]);

  // The bar sits in the note's margin beside the first mark of the change
  // it acts on, so it never covers the text.
  useEffect(() => {
    const root = host.current;
    const mark = target && root ? root.querySelector<HTMLElement>(`[data-hunk="${CSS.escape(target)}"]`) : null;
    setBar(mark && root ? inMargin(mark, root) : null);
  }, [target, shown]);

  if ("error" in shown) {
    return (
      <div class="redline-error" data-testid="redline-error">
        This note could not be rendered ({shown.error}): it is shown as source.
      </div>
    );
  }
  const flag = target ? flagLabel(hunkInfo.value.get(target)?.flags) : null;
  return (
    <div
      class="redline"
      data-testid="redline"
      ref={host}
      // The bar stays with the last change the pointer rested on, so that
      // the way to its buttons does not take it elsewhere.
      onMouseOver={onHover}
      onMouseLeave={() => setHovered(null)}
      onClick={(e) => {
        const el = e.target as Element;
        const mark = el.closest("[data-hunk]");
        const id = mark?.getAttribute("data-hunk");
        // A link inside a change: the first click picks the change, the
        // next one follows the link.
        if (id && id !== currentHunk.value) {
          e.preventDefault();
          currentHunk.value = id;
          setHovered(id);
          return;
        }
        const link = el.closest<HTMLElement>(".wikilink, .embed-note");
        if (link) {
          e.preventDefault();
          void follow(link.dataset.target ?? "");
          return;
        }
        const external = el.closest("a[href]");
        if (external) {
          // Another site opens outside Redline, never in its window.
          e.preventDefault();
          window.open((external as HTMLAnchorElement).href, "_blank", "noopener,noreferrer");
          return;
        }
      }}
    >
      {bar && target && (
        <div class="redline-bar" data-testid="redline-bar" data-for={target} style={{ top: `${bar.top}px`, left: `${bar.left}px` }}>
          {flag && (
            <span class="flag" title={hunkInfo.value.get(target)?.flags?.map((f) => f.reason).join("\n")}>
              {flag}
            </span>
          )}
          {pending ? (
            <>
              <button data-testid="redline-accept" onClick={() => void decide("accepted", target)} title="Accept this change (Alt+Y)">
                Accept
              </button>
              <button data-testid="redline-reject" onClick={() => void decide("rejected", target)} title="Reject this change (Alt+N)">
                Reject
              </button>
              <button data-testid="redline-reject-why" onClick={() => void decide("rejected", target, true)} title="Reject this change and say why (Alt+Shift+N)">
                Reject…
              </button>
              {hunkInfo.value.get(target)?.pattern && (
                <button
                  data-testid="redline-accept-pattern"
                  onClick={() => {
                    currentHunk.value = target;
                    void decideCurrentPattern("accepted");
                  }}
                  title="Accept every change of this pattern (Alt+Shift+Y)"
                >
                  Accept pattern
                </button>
              )}
            </>
          ) : null}
          <button data-testid="redline-undo" onClick={() => void undoDecision()} title="Undo the last decision (Alt+U)">
            Undo
          </button>
        </div>
      )}
      <article class="redline-note" ref={article} dangerouslySetInnerHTML={{ __html: shown.html }} />
    </div>
  );
}
