import { defineConfig } from "vite";

// The UI is served by `redline serve` and packed into the desktop app from
// `dist/`; both load it from their own origin, so asset paths are relative.
export default defineConfig({
  base: "./",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: { target: "es2022", chunkSizeWarningLimit: 2000 },
});
