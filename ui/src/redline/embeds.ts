// Embeds drawn from the vault in a rendered note. An image (`![[diagram.png]]`):
// the engine sends its bytes, and the window shows them as a `data:`
// address, so nothing is loaded from anywhere else. A note (`![[Plan]]`,
// `![[Plan#Goals]]`): a titled excerpt of it as the engine has it now,
// rendered and sanitized like the note around it; embeds inside an excerpt
// keep their names (a note that embeds itself draws once).

import { api } from "../api/client";
import { excerpt, md, mayHoldHtml } from "./markdown";
import { sanitize } from "./safe";

/** The vault's path for a link's or an embed's `target` (heading dropped):
 * itself when it names a path, else the file of that name the quick-open
 * index finds, as Obsidian resolves a name alone; a note's `.md` may be
 * left out. */
export async function resolve(target: string): Promise<string | null> {
  const name = target.split("#")[0].trim();
  if (!name) return null;
  const found = await api.quickOpen({ query: name, limit: 50 }).catch(() => null);
  const bare = (p: string) => p.toLowerCase().replace(/\.md$/, "");
  const want = bare(name);
  return found?.paths.find((p) => bare(p.path) === want || bare(p.path).endsWith(`/${want}`))?.path ?? null;
}

/** Draws every image embed under `root` that is not drawn yet; an image
 * that cannot be found or sent keeps its name, with why on hover. */
export async function drawImages(root: HTMLElement) {
  for (const embed of root.querySelectorAll<HTMLElement>(".embed-image[data-target]:not([data-drawn])")) {
    embed.dataset.drawn = "1";
    const target = embed.dataset.target ?? "";
    const path = await resolve(target);
    const image = path ? await api.image({ path }).catch((e: unknown) => (e instanceof Error ? e.message : String(e))) : "no file of that name";
    if (typeof image === "string") {
      embed.title = `${target}: ${image}`;
      continue;
    }
    const img = document.createElement("img");
    img.src = `data:${image.mime};base64,${image.base64}`;
    img.alt = target;
    img.title = image.path;
    img.className = "embed-drawn";
    embed.replaceChildren(img);
  }
}

/** Draws every note embed under `root` that is not drawn yet as a titled
 * excerpt; a note that cannot be found, read or holds no such heading
 * keeps its name, with why on hover. */
export async function drawNotes(root: HTMLElement) {
  for (const embed of root.querySelectorAll<HTMLElement>(".embed-note[data-target]:not([data-drawn])")) {
    embed.dataset.drawn = "1";
    const target = embed.dataset.target ?? "";
    const heading = target.includes("#") ? target.slice(target.indexOf("#") + 1).replace(/^\^/, "") : null;
    const path = await resolve(target);
    const file = path ? await api.file({ path }).catch((e: unknown) => (e instanceof Error ? e.message : String(e))) : "no note of that name";
    const part = typeof file === "string" ? null : excerpt(file.text, heading);
    if (typeof file === "string" || !part) {
      embed.title = `${target}: ${typeof file === "string" ? file : `no heading “${heading}” in it`}`;
      continue;
    }
    const title = document.createElement("span");
    title.className = "embed-title";
    title.textContent = `↪ ${(path ?? target).replace(/\.md$/, "")}${heading ? ` › ${heading}` : ""}`;
    const body = document.createElement("span");
    body.className = "embed-body";
    body.innerHTML = sanitize(md.render(part.text), mayHoldHtml(part.text));
    // Embeds in an excerpt stay names: no note is drawn inside itself.
    for (const inner of body.querySelectorAll<HTMLElement>(".embed-note")) inner.dataset.drawn = "nested";
    embed.classList.add("embed-note-drawn");
    embed.title = part.cut ? `${path}: the first lines (open the note for the rest)` : (path ?? target);
    embed.replaceChildren(title, body);
    if (part.cut) {
      const more = document.createElement("span");
      more.className = "embed-more";
      more.textContent = "…";
      embed.append(more);
    }
  }
}

/** Draws the note embeds under `root`, then the image embeds (those of
 * the excerpts too). */
export async function drawEmbeds(root: HTMLElement) {
  await drawNotes(root);
  await drawImages(root);
}
