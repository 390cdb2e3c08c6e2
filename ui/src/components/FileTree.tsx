// The project's files as a folder tree, with a badge for pending hunks, a dot
// for unsaved work and a mark for conflicts.

import { useMemo, useState } from "preact/hooks";
import type { TreeEntry } from "../api/types";
import { openPath } from "../state/files";
import { dirtyPaths, openFile, tree } from "../state/store";

interface Folder {
  name: string;
  path: string;
  folders: Folder[];
  files: TreeEntry[];
}

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

export function FileTree() {
  const root = useMemo(() => build(tree.value), [tree.value]);
  return (
    <section class="tree" aria-label="Files">
      <h2>Files</h2>
      <div class="tree-body" role="tree">
        <FolderRows folder={root} depth={0} />
      </div>
    </section>
  );
}

function FolderRows({ folder, depth }: { folder: Folder; depth: number }) {
  return (
    <>
      {folder.folders.map((f) => (
        <FolderRow key={f.path} folder={f} depth={depth} />
      ))}
      {folder.files.map((f) => (
        <FileRow key={f.path} entry={f} depth={depth} />
      ))}
    </>
  );
}

function FolderRow({ folder, depth }: { folder: Folder; depth: number }) {
  const [open, setOpen] = useState(true);
  return (
    <>
      <button class="tree-row tree-folder" style={{ paddingLeft: `${8 + depth * 12}px` }} onClick={() => setOpen(!open)} aria-expanded={open}>
        <span class="chevron">{open ? "▾" : "▸"}</span>
        {folder.name}
      </button>
      {open && <FolderRows folder={folder} depth={depth + 1} />}
    </>
  );
}

function FileRow({ entry, depth }: { entry: TreeEntry; depth: number }) {
  const name = entry.path.slice(entry.path.lastIndexOf("/") + 1);
  const pending = entry.state.pending_hunks.length;
  const active = openFile.value?.path === entry.path;
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
      {dirtyPaths.value.has(entry.path) && <span class="dirty" title="Unsaved changes" aria-label="unsaved">●</span>}
      {entry.state.conflict && <span class="badge badge-conflict" title="Changed on disk by another program">conflict</span>}
      {pending > 0 && (
        <span class="badge" data-testid="pending-badge" title={`${pending} pending hunk(s)`}>
          {pending}
        </span>
      )}
    </button>
  );
}
