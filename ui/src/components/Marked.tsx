// Text with some of its characters or spans marked (a match).

/** `text` with the UTF-16 `[start, end)` spans wrapped in <mark>. */
export function Marked({ text, spans }: { text: string; spans: readonly (readonly [number, number])[] }) {
  const parts = [];
  let at = 0;
  for (const [start, end] of spans) {
    if (start < at || end > text.length) continue;
    if (start > at) parts.push(text.slice(at, start));
    parts.push(<mark key={start}>{text.slice(start, end)}</mark>);
    at = end;
  }
  if (at < text.length) parts.push(text.slice(at));
  return <>{parts}</>;
}

/** Single positions as one-character spans, neighbours merged. */
export function spansOf(positions: readonly number[]): [number, number][] {
  const spans: [number, number][] = [];
  for (const p of positions) {
    const last = spans[spans.length - 1];
    if (last && last[1] === p) last[1] = p + 1;
    else spans.push([p, p + 1]);
  }
  return spans;
}
