// The file tree's folders, loaded as they open: each folder's direct children
// by prefix, so a project of 40,000 notes never sends its whole list. A small
// project comes whole in one request, and all its folders start open.

import { signal } from "@preact/signals";
import { api } from "../api/client";
import type { Listing, TreeEntry } from "../api/types";
import { attempt } from "./store";

/** Up to this many files, the project is listed whole and every folder starts open. */
export const LIST_WHOLE_UP_TO = 500;

/** Each loaded folder's children, by folder path (`""` is the root). */
export const listings = signal<ReadonlyMap<string, Listing>>(new Map());
/** Whether the whole project is listed (a small one). */
export const whole = signal(false);

const loading = new Set<string>();

/** Lists the root again and every folder loaded so far (the whole project
 * when it is small). */
export async function reloadListings() {
  const root = await attempt("Listing files", () => api.children({}));
  if (!root) return;
  if (root.files_under <= LIST_WHOLE_UP_TO) {
    const all = await attempt("Listing files", () => api.tree({}));
    if (!all) return;
    listings.value = byFolder(all);
    whole.value = true;
    return;
  }
  const loaded = [...listings.value.keys()].filter((p) => p !== "");
  const again = await Promise.all(loaded.map((prefix) => api.children({ prefix }).catch(() => null)));
  const next = new Map([["", root]]);
  loaded.forEach((prefix, i) => {
    const listing = again[i];
    if (listing) next.set(prefix, listing);
  });
  whole.value = false;
  listings.value = next;
}

/** Loads the children of `prefix` unless they are loaded or on their way. */
export async function loadFolder(prefix: string) {
  if (loading.has(prefix) || listings.value.has(prefix)) return;
  loading.add(prefix);
  try {
    const listing = await attempt(`Listing ${prefix}`, () => api.children({ prefix }));
    if (listing) listings.value = new Map(listings.value).set(prefix, listing);
  } finally {
    loading.delete(prefix);
  }
}

/** The folders above `path`, outermost first. */
export function ancestors(path: string): string[] {
  const parts = path.split("/").slice(0, -1);
  return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
}

/** Every folder's listing from the whole project's sorted list. */
function byFolder(entries: TreeEntry[]): Map<string, Listing> {
  const out = new Map<string, Listing>([["", { folders: [], files: [], files_under: entries.length }]]);
  const folder = (path: string) => {
    let listing = out.get(path);
    if (!listing) {
      out.set(path, (listing = { folders: [], files: [], files_under: 0 }));
      const parent = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
      folder(parent).folders.push({ path, files: 0 });
    }
    return listing;
  };
  for (const entry of entries) {
    const parent = entry.path.includes("/") ? entry.path.slice(0, entry.path.lastIndexOf("/")) : "";
    folder(parent).files.push(entry);
    for (const above of ancestors(entry.path)) out.get(above)!.files_under += 1;
  }
  for (const listing of out.values()) for (const row of listing.folders) row.files = out.get(row.path)!.files_under;
  return out;
}
