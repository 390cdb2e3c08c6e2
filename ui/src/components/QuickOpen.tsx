// Quick open (Ctrl+P): type part of a path, pick a file. The engine ranks
// every path with a fuzzy matcher; the latest answer wins.

import { memo } from "preact/compat";
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api/client";
import type { FoundPath, FoundPaths } from "../api/types";
import { openPath } from "../state/navigation";
import { overlay } from "../state/store";
import { Marked, spansOf } from "./Marked";
import { Overlay } from "./Overlay";

let asked = 0;

export function QuickOpen() {
  const [query, setQuery] = useState("");
  const [found, setFound] = useState<FoundPaths | null>(null);
  const [current, setCurrent] = useState(0);
  const list = useRef<HTMLUListElement>(null);
  // What the list shows answers, and the answer to the newest question.
  const shownFor = useRef<string | null>(null);
  const newest = useRef<Promise<FoundPaths | null>>(Promise.resolve(null));
  // Asked from the keystroke itself: an effect would wait for a frame first.
  const ask = (text: string) => {
    setQuery(text);
    const ticket = ++asked;
    newest.current = api.quickOpen({ query: text, limit: 50 }).then(
      (answer) => {
        if (ticket === asked) {
          shownFor.current = text;
          setFound(answer);
          setCurrent(0);
        }
        return answer;
      },
      () => null,
    );
  };
  useEffect(() => ask(""), []);
  useEffect(() => {
    list.current?.children[current]?.scrollIntoView({ block: "nearest" });
  }, [current]);
  const paths = found?.paths ?? [];
  return (
    <Overlay class="palette" label="Quick open" testid="quick-open" close={() => (overlay.value = "none")}>
        <input
          data-autofocus
          data-testid="quick-open-input"
          aria-label="File name"
          placeholder="Type part of a file's path"
          value={query}
          onInput={(e) => ask(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === "ArrowDown" || e.key === "ArrowUp") {
              e.preventDefault();
              const step = e.key === "ArrowDown" ? 1 : -1;
              setCurrent((c) => Math.min(Math.max(0, c + step), Math.max(0, paths.length - 1)));
            } else if (e.key === "Enter") {
              e.preventDefault();
              // Typed faster than the answers come, the list still shows
              // an earlier question's: Enter opens the best match for
              // what was typed, once it is known.
              if (shownFor.current === e.currentTarget.value) open(paths[current]?.path);
              else void newest.current.then((answer) => open(answer?.paths[0]?.path));
            }
          }}
        />
        <ul class="palette-list" ref={list} role="listbox">
          <Results paths={paths} current={current} />
        </ul>
        <div class="muted palette-foot" data-testid="quick-open-count">
          {found ? `${found.total.toLocaleString()} of ${found.searched.toLocaleString()} files match` : "…"}
        </div>
    </Overlay>
  );
}

/** Opens `path`, closing the palette. */
function open(path: string | undefined) {
  if (!path) return;
  overlay.value = "none";
  void openPath(path);
}

/** The ranked paths; drawn again only when they or the current one change,
 * not on each keystroke before the answer comes. */
const Results = memo(function Results({ paths, current }: { paths: FoundPath[]; current: number }) {
  return (
    <>
      {paths.map((p, i) => (
        <li key={p.path} role="option" aria-selected={i === current} class={i === current ? "active" : ""} data-testid="quick-open-item" data-path={p.path} onClick={() => open(p.path)}>
          <Marked text={p.path} spans={spansOf(p.positions)} />
        </li>
      ))}
    </>
  );
});
