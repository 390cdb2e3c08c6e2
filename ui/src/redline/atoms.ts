// A note rendered as a flat run of atoms — an element's opening or closing
// tag, a word, a space, or a piece that is whole on its own (a code block,
// a link to a note, an image) — each with the source line it comes from.
// Two renderings as atoms can be compared word by word, and a difference
// tied by its line to the hunk that made it.

import { frontMatter, md, type Token } from "./markdown.js";

/** One piece of a rendered note. */
export interface Atom {
  /** `open` and `close` nest; `text` is a word or a space; `whole` is a
   * piece shown as one (a code block, a link to a note, a break). */
  kind: "open" | "close" | "text" | "whole";
  /** What compares it with an atom of the other rendering: equal keys
   * render the same. */
  key: string;
  /** Its HTML; `mark` classes an opening tag as a change of its hunk. */
  html: (mark?: { cls: string; hunk: string | null }) => string;
  /** Its line in the note (0-based). */
  line: number;
  /** For an opening tag, whether it opens a block (a paragraph, a row, a
   * list item), which a removed block is shown as. */
  block?: boolean;
}

const escape = md.utils.escapeHtml;

/** Markdown whose rendering depends on the rest of the note: a footnote
 * (`[^1]`), a reference link (`[text][ref]`, `[ref][]`) or its definition;
 * `[ref]` alone is one too where the note defines links. */
const ELSEWHERE = /\[\^|\]\[|^\s{0,3}\[[^\]]+\]:/m;
const plain = (html: string) => () => html;

/** Each word and each run of spaces of `text`, apart. */
function words(text: string, line: number, out: Atom[]) {
  for (const piece of text.split(/(\s+)/)) {
    if (piece !== "") out.push({ kind: "text", key: `t${piece}`, html: plain(escape(piece)), line });
  }
}

/** The atoms of `tokens[i]` (an element's tag with its attributes), marked
 * on request by a class and the hunk it belongs to. */
function tag(tokens: Token[], i: number, line: number, block: boolean, env: object): Atom {
  const token = tokens[i];
  const rule = md.renderer.rules[token.type];
  const render = (mark?: { cls: string; hunk: string | null }) => {
    if (!mark || token.nesting !== 1) return rule ? rule(tokens, i, md.options, env, md.renderer) : md.renderer.renderToken(tokens, i, md.options);
    const marked = Object.assign(Object.create(Object.getPrototypeOf(token)), token) as Token;
    marked.attrs = token.attrs ? token.attrs.map((a) => [a[0], a[1]] as [string, string]) : null;
    marked.attrJoin("class", mark.cls);
    if (mark.hunk) marked.attrSet("data-hunk", mark.hunk);
    const copy = tokens.slice();
    copy[i] = marked;
    return rule ? rule(copy, i, md.options, env, md.renderer) : md.renderer.renderToken(copy, i, md.options);
  };
  const attrs = token.attrs ? JSON.stringify(token.attrs) : "";
  return {
    kind: token.nesting === 1 ? "open" : "close",
    key: `${token.nesting === 1 ? "o" : "c"}${token.type}${token.tag}${token.markup}${attrs}${token.info ?? ""}`,
    html: render,
    line,
    block,
  };
}

/** A piece rendered whole (a code block, a link to a note, a break). */
function whole(tokens: Token[], i: number, line: number, env: object): Atom {
  const token = tokens[i];
  const rule = md.renderer.rules[token.type];
  const html = rule ? rule(tokens, i, md.options, env, md.renderer) : md.renderer.renderToken(tokens, i, md.options);
  return { kind: "whole", key: `w${token.type}${html}`, html: plain(html), line };
}

/** The atoms of an inline run of `tokens` (a paragraph's or a heading's
 * words), from line `first`: each line break moves the line on. Text on a
 * line that is not `changed` is one atom: only a changed line is compared
 * word by word (a paragraph of six lines with one changed was six times
 * the atoms, and the comparison's time with them). */
function inline(tokens: Token[], first: number, out: Atom[], env: object, changed: (line: number) => boolean) {
  let line = first;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.type === "text") {
      if (changed(line)) words(t.content, line, out);
      else if (t.content !== "") out.push({ kind: "text", key: `t${t.content}`, html: plain(escape(t.content)), line });
    }
    else if (t.type === "softbreak" || t.type === "hardbreak") {
      out.push(whole(tokens, i, line, env));
      line++;
    } else if (t.nesting !== 0) out.push(tag(tokens, i, line, false, env));
    else if (t.type === "code_inline") {
      // Inline code compares word by word, its markup kept whole.
      out.push({ kind: "open", key: "ocode", html: (m) => (m ? `<code class="${m.cls}"${m.hunk ? ` data-hunk="${escape(m.hunk)}"` : ""}>` : "<code>"), line });
      words(t.content, line, out);
      out.push({ kind: "close", key: "ccode", html: plain("</code>"), line });
    } else out.push(whole(tokens, i, line, env));
  }
}

/** The last few bodies parsed, with their tokens and what the parse
 * learned: a decision changes one side of a redline (accepted, the note
 * without its pending changes; rejected, the note with them), and reading
 * a note again changes neither, so the other side is not parsed again.
 * Nothing here changes a token: a mark renders a copy. */
const parsed = new Map<string, { tokens: Token[]; env: object }>();
const PARSED_KEPT = 4;

function parse(body: string): { tokens: Token[]; env: object } {
  let hit = parsed.get(body);
  if (hit) parsed.delete(body);
  else {
    const env = {};
    hit = { tokens: md.parse(body, env), env };
  }
  parsed.set(body, hit);
  if (parsed.size > PARSED_KEPT) parsed.delete(parsed.keys().next().value!);
  return hit;
}

/** The note `text` as atoms: its front matter as a properties table, then
 * its body as markdown-it renders it. A top-level block (a paragraph, a
 * list, a table) none of whose lines `near` holds is one atom, its whole
 * HTML: only the blocks around a change are taken apart (a 5,000-line
 * note was 90,000 atoms a side, and four fifths of the time), and in them
 * only the `changed` lines word by word. Both sides of a comparison must
 * say the same of a line they share. */
export function atomize(text: string, near: (start: number, end: number) => boolean = () => true, changed: (line: number) => boolean = () => true): Atom[] {
  const out: Atom[] = [];
  const { properties, body } = frontMatter(text);
  if (properties.length > 0) {
    const open = (html: string, key: string, line: number, block = true): Atom => ({
      kind: "open",
      key,
      html: (m) => (m ? html.replace(/>$/, ` class="${m.cls}"${m.hunk ? ` data-hunk="${escape(m.hunk)}"` : ""}>`) : html),
      line,
      block,
    });
    const close = (html: string, line: number): Atom => ({ kind: "close", key: `c${html}`, html: plain(html), line });
    out.push(open('<table class="properties">', "oproperties", 0, false));
    for (const p of properties) {
      out.push(open("<tr>", "otr", p.line));
      out.push(open('<th class="property-key">', `okey${p.key}`, p.line, false));
      words(p.key, p.line, out);
      out.push(close("</th>", p.line));
      out.push(open('<td class="property-value">', "ovalue", p.line, false));
      p.values.forEach((v, n) => {
        if (n > 0) out.push({ kind: "whole", key: "wbr", html: plain("<br>"), line: v.line });
        words(v.text, v.line, out);
      });
      out.push(close("</td>", p.line));
      out.push(close("</tr>", p.line));
    }
    out.push(close("</table>", properties[properties.length - 1].line));
  }
  // What the parse learns (footnotes) its rendering reads.
  const { tokens, env } = parse(body);
  const lines = body.split("\n");
  // With link definitions in the note, any `[text]` may be a link to one.
  const defined = Object.keys((env as { references?: object }).references ?? {}).length > 0;
  let line = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.map) line = t.map[0];
    if (t.level === 0 && t.map && !near(t.map[0], t.map[1])) {
      let end = i;
      if (t.nesting === 1) for (let depth = 0; end < tokens.length; end++) if ((depth += tokens[end].nesting) === 0 && end > i) break;
      const block = tokens.slice(i, end + 1);
      const source = lines.slice(t.map[0], t.map[1]).join("\n");
      // Compared by its source and rendered only if drawn: a block far
      // from every change is the same on both sides, and only the note's
      // side is drawn (rendering each twice was half of a 5,000-line
      // note's time). One whose rendering reads what the rest of the note
      // defines (a footnote, a reference link) is compared as rendered.
      if (ELSEWHERE.test(source) || (defined && source.includes("["))) {
        const html = md.renderer.render(block, md.options, env);
        out.push({ kind: "whole", key: `b${html}`, html: plain(html), line });
      } else {
        let html: string | undefined;
        out.push({ kind: "whole", key: `s${source}`, html: () => (html ??= md.renderer.render(block, md.options, env)), line });
      }
      i = end;
      continue;
    }
    if (t.type === "inline") inline(t.children ?? [], line, out, env, changed);
    else if (t.nesting !== 0) {
      // A tight list's paragraphs are not drawn: only their words are.
      if (!t.hidden) out.push(tag(tokens, i, line, t.block, env));
    } else out.push(whole(tokens, i, line, env));
  }
  return out;
}
