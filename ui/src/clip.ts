// Text cut to what a label has room for.

/** `text` cut to `n` characters, ending in `…` when it was longer. */
export function clip(text: string, n: number): string {
  return text.length > n ? `${text.slice(0, n)}…` : text;
}
