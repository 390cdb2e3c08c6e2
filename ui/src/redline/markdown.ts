// Markdown as Obsidian renders it, for the redline view: CommonMark and GFM
// tables by markdown-it (the reference JavaScript CommonMark parser, whose
// tokens carry their source lines, which the redline needs to tie a change
// to its hunk), footnotes, ==highlights== and task lists by the @mdit
// plugins, code coloured by highlight.js, and Obsidian's own syntax — wikilinks, embeds, #tags, callouts —
// by the small rules below. Front matter is read apart (`frontMatter`).

import MarkdownIt from "markdown-it";
import type { StateInline, Token } from "markdown-it";
import { footnote } from "@mdit/plugin-footnote";
import { mark } from "@mdit/plugin-mark";
import { tasklist } from "@mdit/plugin-tasklist";
import hljs from "highlight.js/lib/common";

/** Files an embed shows as an image. */
const IMAGE = /\.(png|jpe?g|gif|webp|svg|bmp|avif)$/i;

/** `[[target#heading|alias]]` and `![[embed]]`: one token each, `wikilink`
 * or `embed`, with the target and the alias in its meta. */
function wikilinks(md: MarkdownIt) {
  md.inline.ruler.before("link", "wikilink", (state: StateInline, silent: boolean) => {
    const src = state.src;
    let at = state.pos;
    const embed = src.charCodeAt(at) === 0x21; /* ! */
    if (embed) at++;
    if (!src.startsWith("[[", at)) return false;
    const end = src.indexOf("]]", at + 2);
    if (end < 0) return false;
    const inner = src.slice(at + 2, end);
    if (inner.includes("\n") || inner.includes("[[") || inner.trim() === "") return false;
    if (!silent) {
      const bar = inner.indexOf("|");
      const target = (bar < 0 ? inner : inner.slice(0, bar)).trim();
      const alias = bar < 0 ? null : inner.slice(bar + 1).trim();
      const token = state.push(embed ? "embed" : "wikilink", "", 0);
      token.meta = { target, alias };
      token.content = inner;
    }
    state.pos = end + 2;
    return true;
  });
  md.renderer.rules.wikilink = (tokens, i) => {
    const { target, alias } = tokens[i].meta as { target: string; alias: string | null };
    const shown = alias ?? target.replace(/#/, " › ");
    return `<a class="wikilink" data-target="${md.utils.escapeHtml(target)}" href="#" title="${md.utils.escapeHtml(target)}">${md.utils.escapeHtml(shown)}</a>`;
  };
  md.renderer.rules.embed = (tokens, i) => {
    const { target, alias } = tokens[i].meta as { target: string; alias: string | null };
    const name = md.utils.escapeHtml(target);
    return IMAGE.test(target)
      ? `<span class="embed embed-image" data-target="${name}" title="${name}">🖼 ${md.utils.escapeHtml(alias ?? target)}</span>`
      : `<span class="embed embed-note" data-target="${name}" title="Embedded note: ${name}">↪ ${md.utils.escapeHtml(alias ?? target)}</span>`;
  };
}

/** `#tag` (and `#nested/tag`) after a space or at a line's start, with a
 * letter in it (`#1` is no tag): a `tag` token. */
function tags(md: MarkdownIt) {
  const TAG = /^#([\p{L}\p{N}_\-/]*\p{L}[\p{L}\p{N}_\-/]*)/u;
  md.inline.ruler.push("tag", (state: StateInline, silent: boolean) => {
    if (state.src.charCodeAt(state.pos) !== 0x23 /* # */) return false;
    const before = state.pos === 0 ? " " : state.src[state.pos - 1];
    if (!/\s/.test(before)) return false;
    const found = TAG.exec(state.src.slice(state.pos));
    if (!found) return false;
    if (!silent) {
      const token = state.push("tag", "", 0);
      token.content = found[1];
    }
    state.pos += found[0].length;
    return true;
  });
  md.renderer.rules.tag = (tokens, i) => `<span class="tag">#${md.utils.escapeHtml(tokens[i].content)}</span>`;
}

/** `> [!note] Title` opening a block quote: an Obsidian callout, its type
 * a class and its first line a title. */
function callouts(md: MarkdownIt) {
  md.core.ruler.after("inline", "callout", (state) => {
    const tokens = state.tokens;
    for (let i = 0; i + 2 < tokens.length; i++) {
      if (tokens[i].type !== "blockquote_open" || tokens[i + 1].type !== "paragraph_open") continue;
      const inline = tokens[i + 2];
      const found = /^\[!([\w-]+)\][+-]?[ \t]*([^\n]*)/.exec(inline.content);
      if (!found || !inline.children) continue;
      const kind = found[1].toLowerCase();
      tokens[i].attrJoin("class", `callout callout-${kind}`);
      tokens[i].attrSet("data-callout", kind);
      // The first line's words become the title: its children up to the
      // first line break.
      const children = inline.children;
      const cut = children.findIndex((c) => c.type === "softbreak" || c.type === "hardbreak");
      const head = cut < 0 ? children : children.slice(0, cut);
      const rest = cut < 0 ? [] : children.slice(cut);
      if (head[0]?.type === "text") head[0].content = head[0].content.replace(/^\[![\w-]+\][+-]?[ \t]*/, "");
      const open = new state.Token("callout_title_open", "span", 1);
      open.attrSet("class", "callout-title");
      const close = new state.Token("callout_title_close", "span", -1);
      const title = head.filter((c) => c.type !== "text" || c.content !== "");
      if (title.length === 0) {
        const word = new state.Token("text", "", 0);
        word.content = kind[0].toUpperCase() + kind.slice(1);
        title.push(word);
      }
      inline.children = [open, ...title, close, ...rest];
    }
  });
}

/** A fenced code block's words coloured by highlight.js (its common
 * languages, the block's own `lang`), or `""` to leave them plain. */
function highlight(code: string, lang: string): string {
  if (!lang || !hljs.getLanguage(lang)) return "";
  try {
    return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
  } catch {
    return "";
  }
}

/** The parser the redline view renders with. */
export const md: MarkdownIt = new MarkdownIt({ html: true, linkify: false, typographer: false, highlight })
  .use(footnote)
  .use(mark)
  .use(tasklist)
  .use(wikilinks)
  .use(tags)
  .use(callouts);

// A link's `javascript:` or `data:` address is refused by markdown-it's own
// validateLink; a note's raw HTML is left to the sanitizer (`safe.ts`).

// An image is drawn as its description and address, never loaded: a note
// must not fetch from anywhere (the vault's own images are embeds, drawn
// from the engine's bytes).
md.renderer.rules.image = (tokens, i, options, env, self) => {
  const token = tokens[i];
  const src = token.attrGet("src") ?? "";
  const alt = self.renderInlineAsText(token.children ?? [], options, env) || "Image";
  return `<img class="rl-image" alt="${md.utils.escapeHtml(`${alt} (not loaded: ${src})`)}" data-src="${md.utils.escapeHtml(src)}">`;
};

/** Whether `text` may hold raw HTML (a `<` anywhere): only then is its
 * rendering more than what markdown-it escapes and the rules above draw,
 * and only then does it need the sanitizer. */
export function mayHoldHtml(text: string): boolean {
  return text.includes("<");
}

/** One property of a note's front matter: its key, and its value's lines
 * (a list or a long value goes on over several), each with its line. */
export interface Property {
  key: string;
  line: number;
  values: { text: string; line: number }[];
}

/** A note's front matter as properties, and the note with the front
 * matter's lines blanked, so that the body's lines keep their numbers. */
export function frontMatter(text: string): { properties: Property[]; body: string } {
  const lines = text.split("\n");
  if (lines[0] !== "---") return { properties: [], body: text };
  const end = lines.findIndex((l, i) => i > 0 && (l === "---" || l === "..."));
  if (end < 0) return { properties: [], body: text };
  const properties: Property[] = [];
  for (let i = 1; i < end; i++) {
    const found = /^([^\s:#-][^:]*):\s?(.*)$/.exec(lines[i]);
    if (found) properties.push({ key: found[1].trim(), line: i, values: found[2] ? [{ text: found[2], line: i }] : [] });
    else if (properties.length > 0) properties[properties.length - 1].values.push({ text: lines[i].trim(), line: i });
  }
  const body = lines.map((l, i) => (i <= end ? "" : l)).join("\n");
  return { properties, body };
}

/** The most lines of a note an embed shows. */
export const EXCERPT_LINES = 12;

/** What an embed of a note shows: its body (front matter left out) from
 * the start, or, under `heading`, the section that heading opens (to the
 * next heading of its level or above; `null` when the note has no such
 * heading); at most [`EXCERPT_LINES`] lines, and whether more were cut. */
export function excerpt(text: string, heading: string | null): { text: string; cut: boolean } | null {
  let lines = frontMatter(text.replace(/\r\n/g, "\n")).body.split("\n");
  if (heading) {
    const want = heading.trim().toLowerCase();
    const start = lines.findIndex((l) => /^#{1,6}\s/.test(l) && l.replace(/^#{1,6}\s+/, "").replace(/\s+#*\s*$/, "").trim().toLowerCase() === want);
    if (start < 0) return null;
    const level = /^#+/.exec(lines[start])?.[0].length ?? 1;
    const end = lines.findIndex((l, i) => i > start && /^#{1,6}\s/.test(l) && (/^#+/.exec(l)?.[0].length ?? 7) <= level);
    lines = lines.slice(start, end < 0 ? undefined : end);
  }
  while (lines.length > 0 && lines[0].trim() === "") lines.shift();
  while (lines.length > 0 && lines[lines.length - 1].trim() === "") lines.pop();
  const cut = lines.length > EXCERPT_LINES;
  return { text: lines.slice(0, EXCERPT_LINES).join("\n"), cut };
}

export type { Token };
