// Project search (Ctrl+Shift+F): the agent's search engine for the person —
// literal or regex, case, glob — with results grouped by file, the matches
// marked, and a click opening the file on the line.

import { useState } from "preact/hooks";
import { api } from "../api/client";
import { useAsked } from "./asked";
import type { SearchResults } from "../api/types";
import { openAt } from "../state/navigation";
import { attempt, overlay } from "../state/store";
import { Marked } from "./Marked";
import { Overlay } from "./Overlay";

const PAGE = 200;

export function SearchPanel() {
  const [query, setQuery] = useState("");
  const [regex, setRegex] = useState(false);
  const [caseSensitive, setCaseSensitive] = useState(false);
  const [glob, setGlob] = useState("");
  const request = (offset: number) => ({ query, regex, case_sensitive: caseSensitive ? true : null, glob: glob.trim() || null, offset, limit: PAGE });
  const { answer: results, setAnswer: setResults, error } = useAsked<SearchResults>(query ? () => api.search(request(0)) : null, [query, regex, caseSensitive, glob]);
  const more = async () => {
    if (!results?.next_offset) return;
    const next = await attempt("Searching", () => api.search(request(results.next_offset ?? 0)));
    if (!next) return;
    // A file cut between pages continues in the next one.
    const files = [...results.files];
    for (const f of next.files) {
      const last = files[files.length - 1];
      if (last?.path === f.path) files[files.length - 1] = { ...last, hits: [...last.hits, ...f.hits] };
      else files.push(f);
    }
    setResults({ ...next, files, offset: results.offset });
  };
  return (
    <Overlay class="search" label="Search the project" testid="search-panel" close={() => (overlay.value = "none")}>
        <div class="row">
          <input data-autofocus data-testid="search-input" aria-label="Search for" placeholder="Search the project" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
          <label title="Regular expression (Rust syntax)">
            <input type="checkbox" data-testid="search-regex" checked={regex} onChange={(e) => setRegex(e.currentTarget.checked)} /> .*
          </label>
          <label title="Match case">
            <input type="checkbox" data-testid="search-case" checked={caseSensitive} onChange={(e) => setCaseSensitive(e.currentTarget.checked)} /> Aa
          </label>
          <input class="glob" data-testid="search-glob" aria-label="Files to search" placeholder="*.md" value={glob} onInput={(e) => setGlob(e.currentTarget.value)} />
        </div>
        {error && <p class="error-text" data-testid="search-error">{error}</p>}
        {results && (
          <p class="muted" data-testid="search-summary">
            {results.total.toLocaleString()} matching line(s) in {results.total_files.toLocaleString()} file(s)
          </p>
        )}
        <div class="search-results">
          {results?.files.map((f) => (
            <section key={f.path} data-testid="search-file" data-path={f.path}>
              <h4>
                {f.path} <span class="muted">{f.hits.length}</span>
              </h4>
              {!f.readable && <p class="muted">Not UTF-8 text: its lines are not shown.</p>}
              {f.readable &&
                f.hits.map((h) => (
                  <button
                    key={h.line}
                    class="hit"
                    data-testid="search-hit"
                    onClick={() => {
                      overlay.value = "none";
                      void openAt(f.path, Number(h.line));
                    }}
                  >
                    <span class="hit-line">{Number(h.line)}</span>
                    <span class="hit-text">
                      <Marked text={h.text} spans={h.spans} />
                    </span>
                  </button>
                ))}
            </section>
          ))}
          {results?.next_offset != null && (
            <button class="link" data-testid="search-more" onClick={() => void more()}>
              More results…
            </button>
          )}
        </div>
    </Overlay>
  );
}
