// The project's files as a folder tree, with a badge for pending hunks, a dot
// for unsaved work and a mark for conflicts. A big project starts with its
// folders collapsed (but the way to the open file and to pending hunks), and
// only the rows in view are in the page: the tree is one flat list of the
// visible rows, cut to the viewport.

import { signal } from "@preact/signals";
import { memo } from "preact/compat";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type { TreeEntry } from "../api/types";
import { openPath } from "../state/files";
import { dirtyPaths, openFile, tree } from "../state/store";

/** Up to this many files, every folder starts open. */
const OPEN_ALL_UP_TO = 500;
/** Up to this many visible rows, all are drawn (nothing to cut). */
const DRAW_ALL_UP_TO = 300;
/** A row's height in pixels (`.tree-row` in styles.css). */
const ROW = 22;

interface Folder {
  name: string;
  path: string;
  folders: Folder[];
  files: TreeEntry[];
}

type Row = { kind: "folder"; folder: Folder; depth: number } | { kind: "file"; entry: TreeEntry; depth: number };

function build(entries: TreeEntry[]): Folder {
  const root: Folder = { name: "", path: "", folders: [], files: [] };
  const index = new Map<string, Folder>([["", root]]);
  const folderOf = (path: string): Folder => {
    const found = index.get(path);
    if (found) return found;
    const cut = path.lastIndexOf("/");
    const parent = folderOf(cut < 0 ? "" : path.slice(0, cut));
    const folder: Folder = { name: path.slice(cut + 1), path, folders: [], files: [] };
    parent.folders.push(folder);
    index.set(path, folder);
    return folder;
  };
  for (const e of entries) {
    const cut = e.path.lastIndexOf("/");
    folderOf(cut < 0 ? "" : e.path.slice(0, cut)).files.push(e);
  }
  return root;
}

/** Folders the user opened or closed, by path (others follow the default). */
const toggled = signal<ReadonlyMap<string, boolean>>(new Map());

/** The folders above `path`. */
function ancestors(path: string): string[] {
  const parts = path.split("/").slice(0, -1);
  return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
}

function flatten(root: Folder, isOpen: (f: Folder) => boolean): Row[] {
  const rows: Row[] = [];
  const walk = (folder: Folder, depth: number) => {
    for (const f of folder.folders) {
      rows.push({ kind: "folder", folder: f, depth });
      if (isOpen(f)) walk(f, depth + 1);
    }
    for (const e of folder.files) rows.push({ kind: "file", entry: e, depth });
  };
  walk(root, 0);
  return rows;
}

export function FileTree() {
  const entries = tree.value;
  const root = useMemo(() => build(entries), [entries]);
  const open = openFile.value?.path ?? null;
  const dirty = dirtyPaths.value;
  // Open by default: everything in a small project; in a big one, the way
  // to the open file and to files with pending hunks or conflicts.
  const wanted = useMemo(() => {
    const set = new Set<string>();
    if (open) for (const a of ancestors(open)) set.add(a);
    for (const e of entries) if (e.state.pending_hunks.length > 0 || e.state.conflict) for (const a of ancestors(e.path)) set.add(a);
    return set;
  }, [entries, open]);
  const all = entries.length <= OPEN_ALL_UP_TO;
  const rows = useMemo(
    () => flatten(root, (f) => toggled.value.get(f.path) ?? (all || wanted.has(f.path))),
    [root, wanted, all, toggled.value],
  );
  const body = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 600 });
  useLayoutEffect(() => {
    const el = body.current;
    if (!el) return;
    const measure = () => setView({ top: el.scrollTop, height: el.clientHeight });
    measure();
    const resized = new ResizeObserver(measure);
    resized.observe(el);
    return () => resized.disconnect();
  }, []);
  // The open file's row comes into view.
  useEffect(() => {
    const el = body.current;
    const at = rows.findIndex((r) => r.kind === "file" && r.entry.path === open);
    if (!el || at < 0) return;
    if (at * ROW < el.scrollTop || (at + 1) * ROW > el.scrollTop + el.clientHeight) el.scrollTop = Math.max(0, at * ROW - el.clientHeight / 2);
  }, [open, rows]);
  const cut = rows.length > DRAW_ALL_UP_TO;
  const first = cut ? Math.max(0, Math.floor(view.top / ROW) - 10) : 0;
  const last = cut ? Math.min(rows.length, Math.ceil((view.top + view.height) / ROW) + 10) : rows.length;
  return (
    <section class="tree" aria-label="Files">
      <h2>Files</h2>
      <div class="tree-body" role="tree" ref={body} onScroll={(e) => cut && setView({ top: e.currentTarget.scrollTop, height: e.currentTarget.clientHeight })}>
        <div style={cut ? { height: `${rows.length * ROW}px`, position: "relative" } : undefined}>
          <div style={cut ? { position: "absolute", top: `${first * ROW}px`, left: 0, right: 0 } : undefined}>
            {rows.slice(first, last).map((r) =>
              r.kind === "folder" ? (
                <FolderRow key={`d:${r.folder.path}`} folder={r.folder} depth={r.depth} open={toggled.value.get(r.folder.path) ?? (all || wanted.has(r.folder.path))} />
              ) : (
                <FileRow key={r.entry.path} entry={r.entry} depth={r.depth} active={open === r.entry.path} dirty={dirty.has(r.entry.path)} />
              ),
            )}
          </div>
        </div>
      </div>
    </section>
  );
}

function FolderRow({ folder, depth, open }: { folder: Folder; depth: number; open: boolean }) {
  const toggle = () => {
    const next = new Map(toggled.value);
    next.set(folder.path, !open);
    toggled.value = next;
  };
  return (
    <button class="tree-row tree-folder" data-testid="tree-folder" data-path={folder.path} style={{ paddingLeft: `${8 + depth * 12}px` }} onClick={toggle} aria-expanded={open}>
      <span class="chevron">{open ? "▾" : "▸"}</span>
      {folder.name}
    </button>
  );
}

const FileRow = memo(function FileRow({ entry, depth, active, dirty }: { entry: TreeEntry; depth: number; active: boolean; dirty: boolean }) {
  const name = entry.path.slice(entry.path.lastIndexOf("/") + 1);
  const pending = entry.state.pending_hunks.length;
  return (
    <button
      class={`tree-row tree-file${active ? " active" : ""}`}
      style={{ paddingLeft: `${20 + depth * 12}px` }}
      data-testid="tree-file"
      data-path={entry.path}
      onClick={() => void openPath(entry.path)}
      title={entry.path}
    >
      <span class="name">{name}</span>
      {dirty && <span class="dirty" title="Unsaved changes" aria-label="unsaved">●</span>}
      {entry.state.conflict && <span class="badge badge-conflict" title="Changed on disk by another program">conflict</span>}
      {pending > 0 && (
        <span class="badge" data-testid="pending-badge" title={`${pending} pending hunk(s)`}>
          {pending}
        </span>
      )}
    </button>
  );
});
