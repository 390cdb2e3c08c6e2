// The desktop app's first screen when no folder is open: pick one, or a recent one.

import { useEffect, useState } from "preact/hooks";
import { shell } from "../api/transport";
import type { ProjectInfo } from "../api/types";
import { boot } from "../app";
import { tell } from "../state/store";

export function OpenFolder() {
  const [recent, setRecent] = useState<string[]>([]);
  useEffect(() => {
    void shell<string[]>("recent_folders").then((r) => setRecent(r ?? []));
  }, []);

  const open = async (path: string | null | undefined) => {
    if (!path) return;
    try {
      await shell<ProjectInfo>("open_folder", { path });
      await boot();
    } catch (e) {
      tell("error", `Cannot open ${path}: ${e}`);
    }
  };

  return (
    <div class="open-folder">
      <h1>Redline</h1>
      <p>Open a folder of notes to review an agent's edits across it.</p>
      <button class="primary" data-testid="pick-folder" onClick={async () => open(await shell<string | null>("pick_folder"))}>
        Open folder…
      </button>
      {recent.length > 0 && (
        <>
          <h2>Recent</h2>
          <ul class="recent">
            {recent.map((path) => (
              <li key={path}>
                <button class="link" data-testid="recent-folder" onClick={() => open(path)}>
                  {path}
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
