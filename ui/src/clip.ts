// Text cut to what a label has room for.

/** `text` cut to `n` characters, ending in `…` when it was longer. */
export function clip(text: string, n: number): string {
  return text.length > n ? `${text.slice(0, n)}…` : text;
}

/** Characters of unchanged text kept on each side of a change. */
const AROUND = 12;

/** The two sides of a change, `before` and `after`, each cut to about `n`
 * characters around what differs: the text both share at the start and
 * the end is cut first (to `…` and a few characters next to the change),
 * then the change itself in its middle, so two long lines that differ at
 * their end never read as the same prefix twice. */
export function clipChange(before: string, after: string, n: number): [string, string] {
  if (before.length <= n && after.length <= n) return [before, after];
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let end = 0;
  while (end < before.length - start && end < after.length - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end++;
  const head = start > AROUND ? `…${before.slice(start - AROUND, start)}` : before.slice(0, start);
  const tail = end > AROUND ? `${before.slice(before.length - end, before.length - end + AROUND)}…` : before.slice(before.length - end);
  const cut = (text: string) => {
    const middle = text.slice(start, text.length - end);
    const room = Math.max(8, n - head.length - tail.length);
    return head + (middle.length > room ? `${middle.slice(0, Math.ceil(room / 2))}…${middle.slice(middle.length - Math.floor(room / 2))}` : middle) + tail;
  };
  return [cut(before), cut(after)];
}
