// What the browser tests share: a vault in a temporary folder, the scripted
// model and `redline serve` as real child processes, and Debian's Chromium
// driven by playwright-core (no downloaded browser).

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
/** The repository root. */
export const root = resolve(here, "../..");
/** Screenshots and figures go here. */
export const artifacts = join(root, "ui/e2e-artifacts");
/** The `redline` binary under test. */
export const redline = process.env.REDLINE_BIN ?? resolve(root, process.env.CARGO_TARGET_DIR ?? "target", "debug/redline");

/** Writes `files` (path → text) into a new temporary folder. */
export function vault(files) {
  const dir = mkdtempSync(join(tmpdir(), "redline-e2e-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** The bytes of `path` in `dir`, as text. */
export function disk(dir, path) {
  return readFileSync(join(dir, path), "utf8");
}

/** Starts `args` and resolves with the child and its first stdout line. */
function start(args, env) {
  const child = spawn(redline, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((ok, fail) => {
    const lines = createInterface({ input: child.stdout });
    lines.once("line", (line) => ok({ child, line: line.trim() }));
    child.once("error", fail);
    child.once("exit", (code) => fail(new Error(`${args[0]} exited with ${code} before it was ready`)));
  });
}

/** A scripted model reply making one tool call. */
export function call(name, args) {
  return { kind: "reply", calls: [{ name, arguments: JSON.stringify(args) }] };
}

/** An edit replacing line `line` of `file`, whose text is `from`, with `to`. */
export function replaceLine(file, line, from, to) {
  return { file_path: file, operation: "replace", start_line: line, end_line: line, new_text: to, old_text: from, rationale: null };
}

/** The configuration `serve` writes by default: the scripted model as the remote provider. */
export const scriptedRemote = (modelUrl) => `agent_mode = "remote"\n[remote]\nprovider = "openai"\nmodel = "scripted-model"\nbase_url = "${modelUrl}/v1"\n`;

/** The scripted model (`turns`) and `redline serve` on `dir`, with
 * `extraEnv` (or `extraEnv(modelUrl)`) and the configuration file
 * `configText(modelUrl)`; `stop()` ends both. No local model server is
 * looked for unless `extraEnv` names some (REDLINE_LOCAL_SERVERS). */
export async function serve(dir, turns, extraEnv = {}, configText = scriptedRemote) {
  const data = mkdtempSync(join(tmpdir(), "redline-e2e-data-"));
  const script = join(data, "script.json");
  writeFileSync(script, JSON.stringify(turns));
  const model = await start(["scripted-model", script], {});
  const config = join(data, "config.toml");
  writeFileSync(config, configText(model.line));
  const env = {
    REDLINE_CONFIG: config,
    REDLINE_DATA_DIR: data,
    REDLINE_NO_KEYCHAIN: "1",
    OPENAI_API_KEY: "sk-e2e-test-key",
    REDLINE_LOCAL_SERVERS: "",
    REDLINE_BUNDLED_MODEL_URL: "",
    ...(typeof extraEnv === "function" ? extraEnv(model.line) : extraEnv),
  };
  const server = await start(["serve", dir, "--ui", join(root, "ui/dist")], env);
  return {
    url: server.line,
    config,
    data,
    async stop() {
      for (const c of [server.child, model.child]) c.kill("SIGTERM");
      rmSync(data, { recursive: true, force: true });
    },
  };
}

/** Debian's Chromium, headless, in a 1280×800 window. */
export async function browser() {
  const b = await chromium.launch({
    executablePath: process.env.REDLINE_CHROMIUM ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const page = await b.newPage({ viewport: { width: 1280, height: 800 } });
  page.on("pageerror", (e) => console.error("page error:", e));
  page.on("console", (m) => m.type() === "error" && console.error("console:", m.text()));
  return { browser: b, page };
}

/** Saves a screenshot of the step `name`. */
export async function shot(page, name) {
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: join(artifacts, `${name}.png`) });
}

/**
 * Saves a screenshot of the step `name`, and, with `REDLINE_DOCS_IMAGES=1`,
 * retakes the docs' picture `docs/images/<image>.png` from it.
 */
export async function docsShot(page, name, image) {
  await shot(page, name);
  if (process.env.REDLINE_DOCS_IMAGES === "1") {
    mkdirSync(join(root, "docs/images"), { recursive: true });
    await page.screenshot({ path: join(root, "docs/images", `${image}.png`) });
  }
}

/** `method` `path` (with the JSON `body`) on the API `server` serves, with its token; the JSON answer. */
export async function api(server, path, method = "GET", body = undefined) {
  const url = new URL(server.url);
  const headers = { Authorization: `Bearer ${url.searchParams.get("token")}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${url.origin}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Polls `check` until it holds; fails with `what` (and a screenshot of `page`) after `ms`. */
export async function waitFor(page, check, what, ms = 10_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  await shot(page, "failure");
  throw new Error(`timed out: ${what}`);
}
