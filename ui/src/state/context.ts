// Context rows from the editor: the selection, or the whole open file.

import { addContext } from "./agent";
import { getEditor } from "./navigation";
import { openFile, tell } from "./store";

/** Adds the editor's selection as a context row. */
export function addSelection() {
  const editor = getEditor();
  const path = editor?.openPath;
  const sel = editor?.selection();
  if (!path || !sel) return tell("info", "Select some text in the editor first");
  addContext({ kind: "selection", file_path: path, start_line: sel.start, end_line: sel.end, content: sel.text });
}

/** Adds the open file as a context row. */
export function addOpenFile() {
  const file = openFile.value;
  if (!file) return tell("info", "Open a file first");
  const lines = file.text.split("\n").length;
  addContext({ kind: "file", file_path: file.path, start_line: 1, end_line: lines, content: file.text });
}
