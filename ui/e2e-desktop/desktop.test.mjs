// The desktop app end to end: the real window (Tauri, WebKitGTK) driven
// through tauri-driver and WebKitWebDriver, with plain W3C WebDriver calls.
//
// 1. With no folder: the open-folder screen; the webview may invoke the
//    shell's commands (api answers 409 no_project) and no plugin or core
//    command; the content security policy blocks eval and other origins.
// 2. With a folder: a scripted model (`redline scripted-model`) proposes one
//    edit; the test runs it from the UI, accepts the hunk in the editor,
//    saves, and checks the bytes on disk.
// 3. The folder is remembered and reopens from the recent list.
// 4. Closing the window with unsaved work asks with a native dialog:
//    cancelling keeps the window, confirming closes it. Xvfb has no window
//    manager, so xwindow.py plays its part (the close request, a key press).
//
// Screenshots of every step go to ui/e2e-artifacts/desktop-*.png, with the
// logs of tauri-driver (and the app) and the model beside them.
//
// Run by scripts/desktop-e2e (which installs and builds everything first),
// under Xvfb:  xvfb-run -a node --test ui/e2e-desktop/desktop.test.mjs
// Environment: REDLINE_DESKTOP_BIN, REDLINE_BIN, TAURI_DRIVER override the
// binaries (default: target/debug/redline-desktop, target/debug/redline,
// ~/.cache/redline/tauri-driver-2.1.0/bin/tauri-driver); REDLINE_E2E_KEEP=1 keeps the temporary folder.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const TARGET = path.resolve(ROOT, process.env.CARGO_TARGET_DIR ?? "target");
const APP = path.resolve(process.env.REDLINE_DESKTOP_BIN ?? path.join(TARGET, "debug/redline-desktop"));
const REDLINE = path.resolve(process.env.REDLINE_BIN ?? path.join(TARGET, "debug/redline"));
const CACHE = process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache");
const DRIVER = path.resolve(process.env.TAURI_DRIVER ?? path.join(CACHE, "redline/tauri-driver-2.1.0/bin/tauri-driver"));
const ARTIFACTS = path.join(ROOT, "ui/e2e-artifacts");
const XWINDOW = path.join(path.dirname(fileURLToPath(import.meta.url)), "xwindow.py");

const NOTE = "notes/alpha.md";
const BEFORE = "# Alpha\n\nStatus: draft\nOwner: Ann\n";
const AFTER = "# Alpha\n\nStatus: final\nOwner: Ann\n";
const KEY = "sk-redline-desktop-e2e-0123456789";

/** The model's one turn: a replace edit of the status line. */
const SCRIPT = [
  {
    kind: "reply",
    calls: [
      {
        name: "propose_edits",
        arguments: JSON.stringify({
          edits: [
            {
              file_path: NOTE,
              operation: "replace",
              start_line: 3,
              end_line: 3,
              new_text: "Status: final",
              old_text: null,
              rationale: null,
            },
          ],
          summary: "Marked Alpha final.",
        }),
      },
    ],
  },
];

const children = [];
const sessions = [];
let tmp;
let driverUrl;
let vault;
let modelUrl;
/** The environment every app of the run is started with (tauri-driver's). */
let appEnv;

/** A free loopback port. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until it returns something truthy, or fails with `what`. */
async function until(what, probe, timeoutMs = 20_000, everyMs = 150) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last.message}` : ""}`);
    }
    await sleep(everyMs);
  }
}

/** Stops the apps this run started (their environment names its temporary
 * folder) that outlived their WebDriver session. */
function stopStrayApps() {
  if (!tmp || !fs.existsSync("/proc")) return;
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (!fs.readlinkSync(`/proc/${pid}/exe`).startsWith(APP)) continue;
      if (!fs.readFileSync(`/proc/${pid}/environ`, "utf8").includes(tmp)) continue;
      process.kill(Number(pid), "SIGKILL");
    } catch {
      // Gone already, or not ours to read.
    }
  }
}

function start(command, args, options, logName) {
  const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  // Both streams are drained into the log, so that a chatty child never blocks.
  const log = fs.createWriteStream(path.join(ARTIFACTS, logName));
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  return child;
}

/** One W3C WebDriver call; resolves to `value`, rejects on a WebDriver error. */
async function wd(method, route, body) {
  const response = await fetch(`${driverUrl}${route}`, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const json = text ? JSON.parse(text) : {};
  if (!response.ok || json.value?.error) {
    const error = json.value ?? {};
    const failure = new Error(`${method} ${route}: ${error.error ?? response.status} ${error.message ?? text}`);
    failure.code = error.error;
    throw failure;
  }
  return json.value;
}

const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

/** A session on the app, opening `folder` when given. */
async function newSession(folder) {
  const value = await wd("POST", "/session", {
    capabilities: {
      alwaysMatch: {
        browserName: "wry",
        "tauri:options": { application: APP, args: folder ? [folder] : [] },
      },
    },
  });
  sessions.push(value.sessionId);
  const id = value.sessionId;
  const s = (route) => `/session/${id}${route}`;
  const page = {
    id,
    async find(selector) {
      const found = await wd("POST", s("/element"), { using: "css selector", value: selector });
      return found[ELEMENT];
    },
    async findAll(selector) {
      const found = await wd("POST", s("/elements"), { using: "css selector", value: selector });
      return found.map((e) => e[ELEMENT]);
    },
    /** Waits for a displayed element matching `selector`. */
    async waitFor(selector, timeoutMs = 20_000) {
      return until(
        selector,
        async () => {
          for (const element of await page.findAll(selector)) {
            if (await wd("GET", s(`/element/${element}/displayed`))) return element;
          }
          return undefined;
        },
        timeoutMs,
      );
    },
    async click(selector, timeoutMs) {
      const element = await page.waitFor(selector, timeoutMs);
      await wd("POST", s(`/element/${element}/click`), {});
      return element;
    },
    async type(selector, text) {
      const element = await page.waitFor(selector);
      await wd("POST", s(`/element/${element}/click`), {});
      await wd("POST", s(`/element/${element}/value`), { text });
      return element;
    },
    async text(element) {
      return wd("GET", s(`/element/${element}/text`));
    },
    /** Runs `script` in the page, awaiting the promise it returns. */
    async run(script, ...args) {
      return wd("POST", s("/execute/async"), {
        script: `const done = arguments[arguments.length - 1];
                 Promise.resolve().then(() => { ${script} })
                   .then((v) => done({ ok: v }), (e) => done({ err: String(e) }));`,
        args,
      });
    },
    async screenshot(name) {
      // Let the last render reach the screen (WebKit captures the painted frame).
      await page.run(`return new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));`);
      await sleep(200);
      const png = await wd("GET", s("/screenshot"));
      const file = path.join(ARTIFACTS, `desktop-${name}.png`);
      fs.writeFileSync(file, Buffer.from(png, "base64"));
      return file;
    },
    async source() {
      return wd("GET", s("/source"));
    },
    async close() {
      await wd("DELETE", `/session/${id}`);
      sessions.splice(sessions.indexOf(id), 1);
    },
  };
  return page;
}

/**
 * Runs `steps` on a new session (opening `folder` when given); on failure,
 * keeps a screenshot and the page's HTML. The session (and so the app) is
 * always ended: WebKitWebDriver allows one at a time.
 */
async function withApp(name, folder, steps) {
  const page = await newSession(folder);
  try {
    await steps(page);
  } catch (e) {
    await page.screenshot(`${name}-failure`).catch(() => {});
    await page
      .source()
      .then((html) => fs.writeFileSync(path.join(ARTIFACTS, `desktop-${name}-failure.html`), html))
      .catch(() => {});
    throw e;
  } finally {
    await page.close().catch(() => {});
  }
}

/** Runs xwindow.py (list, close, key: a window manager's part under Xvfb). */
function xwindow(...args) {
  return execFileSync("python3", [XWINDOW, ...args], { encoding: "utf8" });
}

/** The names of the top-level windows on the display. */
function windowNames() {
  return xwindow("list")
    .split("\n")
    .filter(Boolean)
    .map((line) => line.slice(line.indexOf(" ") + 1));
}

/** The whole display as a PNG (the native dialog is outside the webview), if ImageMagick's import is there. */
function screenshotDisplay(name) {
  try {
    execFileSync("import", ["-window", "root", path.join(ARTIFACTS, `desktop-${name}.png`)]);
  } catch (e) {
    console.log(`no screenshot of the display (${e.message.split("\n")[0]})`);
  }
}

/** Whether some element matching `selector` is displayed. */
async function shown(page, selector) {
  for (const element of await page.findAll(selector)) {
    if (await wd("GET", `/session/${page.id}/element/${element}/displayed`)) return true;
  }
  return false;
}

before(async () => {
  for (const [what, file] of [
    ["the desktop app (cargo build -p redline-desktop)", APP],
    ["redline (cargo build --bin redline)", REDLINE],
    ["tauri-driver (scripts/desktop-e2e installs it)", DRIVER],
  ]) {
    assert.ok(fs.existsSync(file), `missing ${what}: ${file}`);
  }
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  for (const old of fs.readdirSync(ARTIFACTS).filter((f) => f.startsWith("desktop-"))) {
    fs.rmSync(path.join(ARTIFACTS, old));
  }
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "redline-desktop-e2e-"));
  vault = path.join(tmp, "vault");
  fs.mkdirSync(path.join(vault, "notes"), { recursive: true });
  fs.writeFileSync(path.join(vault, NOTE), BEFORE);
  fs.writeFileSync(path.join(vault, "notes/beta.md"), "# Beta\n\nStatus: draft\nOwner: Bo\n");
  fs.writeFileSync(path.join(vault, "Welcome.md"), "# Welcome\n\nA small vault for the desktop test.\n");

  // The scripted model prints its base URL (the Anthropic form, no /v1).
  const script = path.join(tmp, "script.json");
  fs.writeFileSync(script, JSON.stringify(SCRIPT));
  const model = start(REDLINE, ["scripted-model", script], {}, "desktop-model.log");
  const base = await new Promise((resolve, reject) => {
    createInterface({ input: model.stdout }).once("line", resolve);
    model.once("exit", (code) => reject(new Error(`scripted-model exited with ${code}`)));
  });

  modelUrl = base.trim();
  const config = path.join(tmp, "config.toml");
  fs.writeFileSync(
    config,
    [
      'agent_mode = "remote"',
      "",
      "[remote]",
      'provider = "openai"',
      'model = "scripted-model"',
      `base_url = "${base.trim()}/v1"`,
      "",
    ].join("\n"),
  );

  // The app inherits tauri-driver's environment (through WebKitWebDriver).
  const port = await freePort();
  const nativePort = await freePort();
  appEnv = {
    ...process.env,
    REDLINE_CONFIG: config,
    REDLINE_DATA_DIR: path.join(tmp, "data"),
    REDLINE_NO_KEYCHAIN: "1",
    OPENAI_API_KEY: KEY,
  };
  start(DRIVER, ["--port", String(port), "--native-port", String(nativePort)], { env: appEnv }, "desktop-driver.log");
  driverUrl = `http://127.0.0.1:${port}`;
  await until("tauri-driver", async () => (await fetch(`${driverUrl}/status`)).ok, 20_000);
});

after(async () => {
  for (const id of [...sessions]) {
    await wd("DELETE", `/session/${id}`).catch(() => {});
  }
  for (const child of children.reverse()) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await Promise.race([new Promise((r) => child.once("exit", r)), sleep(3000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    // A grandchild that outlived it (an app its session did not stop)
    // holds these pipes open: the test process would never end.
    child.stdout.destroy();
    child.stderr.destroy();
  }
  stopStrayApps();
  if (tmp && !process.env.REDLINE_E2E_KEEP) fs.rmSync(tmp, { recursive: true, force: true });
});

test("with no folder the window shows the open-folder screen and grants only the shell's commands", async () => {
  const started = Date.now();
  await withApp("no-folder", undefined, async (page) => {
    assert.equal(await wd("GET", `/session/${page.id}/title`), "Redline");
    const project = await until("the page's IPC", async () => {
      const r = await page.run(`return window.__TAURI_INTERNALS__.invoke("api", { request: { method: "GET", path: "/api/project" } });`);
      return r?.ok;
    });
    assert.equal(project.status, 409);
    assert.equal(project.body.error.code, "no_project");
    const recent = await page.run(`return window.__TAURI_INTERNALS__.invoke("recent_folders");`);
    assert.deepEqual(recent, { ok: [] });
    // Plugin and core commands are not granted to the webview.
    for (const [command, args] of [
      ["plugin:dialog|open", { options: { directory: true } }],
      ["plugin:dialog|message", { message: "hi" }],
      ["plugin:event|listen", { event: "x", target: { kind: "Any" }, handler: 1 }],
      ["plugin:window|close", { label: "main" }],
    ]) {
      const r = await page.run(
        `return window.__TAURI_INTERNALS__.invoke(arguments[0], arguments[1]);`,
        command,
        args,
      );
      assert.ok(r.err, `${command} was allowed: ${JSON.stringify(r)}`);
      assert.match(r.err, /not allowed|denied|not found/i, `${command}: ${r.err}`);
    }
    // The content security policy is in force: no eval, no requests to
    // other origins (a no-cors request to the scripted model's loopback
    // server would resolve, opaque, if the policy let it through).
    const evaluated = await page.run(`try { return String(eval("1 + 1")); } catch (e) { return "blocked: " + e; }`);
    assert.match(evaluated.ok, /^blocked/, `eval ran: ${JSON.stringify(evaluated)}`);
    const fetched = await page.run(`return fetch(arguments[0], { mode: "no-cors" }).then((r) => "answered: " + r.type);`, modelUrl);
    assert.ok(fetched.err, `a request to ${modelUrl} got through: ${JSON.stringify(fetched)}`);
    console.log(`content security policy: eval ${evaluated.ok.slice(0, 60)}…; fetch ${fetched.err}`);

    // The open-folder screen, with its native folder picker button.
    await page.waitFor('[data-testid="pick-folder"]');
    assert.equal(await shown(page, '[data-testid="project-name"]'), false, "no project is shown");
    await page.screenshot("01-no-folder");
    console.log(`window with no folder ready in ${Date.now() - started} ms`);
  });
});

test("an agent edit is run, accepted in the editor and saved to disk", async () => {
  await withApp("edit", vault, async (page) => {
    const name = await page.waitFor('[data-testid="project-name"]', 30_000);
    await until("the project's name", async () => (await page.text(name)) === "vault");
    const recent = await page.run(`return window.__TAURI_INTERNALS__.invoke("recent_folders");`);
    assert.deepEqual(recent, { ok: [fs.realpathSync(vault)] }, "the opened folder is remembered");
    await page.screenshot("02-project");

    await page.type('[data-testid="instruction"]', "Mark Alpha final");
    await page.screenshot("03-instruction");
    await page.click('[data-testid="run"]');

    await page.waitFor('[data-testid="review-item"]', 30_000);
    await page.screenshot("04-review");
    const items = await page.findAll('[data-testid="review-item"]');
    let item = items[0];
    for (const candidate of items) {
      if ((await page.text(candidate)).includes("alpha")) item = candidate;
    }
    await wd("POST", `/session/${page.id}/element/${item}/click`, {});

    await page.click('.cm-editor [data-testid="hunk-accept"]', 20_000);
    await until("the hunk to be accepted", async () => !(await shown(page, '.cm-editor [data-testid="hunk-accept"]')));
    await page.screenshot("05-accepted");
    await page.click('[data-testid="save"]');

    await until(
      `${NOTE} on disk to hold the edit`,
      () => fs.readFileSync(path.join(vault, NOTE), "utf8") === AFTER,
      10_000,
    );
    await page.screenshot("06-saved");
    assert.equal(fs.readFileSync(path.join(vault, NOTE), "utf8"), AFTER);
    assert.equal(
      fs.readFileSync(path.join(vault, "notes/beta.md"), "utf8"),
      "# Beta\n\nStatus: draft\nOwner: Bo\n",
      "no other file changed",
    );
  });
});

test("a second launch hands its folder to the window already open, which shows that folder's tree", async () => {
  const other = path.join(tmp, "Carnet d’été");
  fs.mkdirSync(path.join(other, "Réunions"), { recursive: true });
  fs.writeFileSync(path.join(other, "Réunions/Compte rendu.md"), "# Compte rendu\n\nÉté 2026.\n");
  await withApp("second-launch", vault, async (page) => {
    const name = await page.waitFor('[data-testid="project-name"]', 30_000);
    await until("the project's name", async () => (await page.text(name)) === "vault");
    // This build, as the help panel shows it.
    const about = await page.run(`return window.__TAURI_INTERNALS__.invoke("api", { request: { method: "GET", path: "/api/about" } });`);
    assert.equal(about.ok.status, 200);
    assert.match(about.ok.body.version, /^\d+\.\d+\.\d+/);
    if (process.env.REDLINE_COMMIT) assert.equal(about.ok.body.commit, process.env.REDLINE_COMMIT, "the commit it was built from");

    // The window's class is the one the packages' desktop entry names
    // (StartupWMClass), so a dock groups the window under its launcher.
    const entry = fs.readFileSync(path.join(ROOT, "src-tauri/packaging/redline.desktop"), "utf8");
    const wmClass = entry.match(/^StartupWMClass=(.*)$/m)[1];
    assert.ok(xwindow("class", "Redline").trim().split(" ").includes(wmClass), `WM_CLASS ${xwindow("class", "Redline")} names no ${wmClass}`);

    const second = spawn(APP, [other], { env: appEnv, stdio: ["ignore", "pipe", "pipe"] });
    children.push(second);
    const [code] = await Promise.race([
      new Promise((resolve) => second.once("exit", (...args) => resolve(args))),
      sleep(15_000).then(() => ["still running after 15 s"]),
    ]);
    assert.equal(code, 0, "the second launch handed over and ended");
    await until("the other folder in the window", async () => {
      const names = await page.findAll('[data-testid="project-name"]');
      return names.length > 0 && (await page.text(names[0])) === "Carnet d’été";
    });
    // The folder's note, the folder opened first if it is not.
    const folder = await page.waitFor('[data-testid="tree-folder"]');
    if ((await wd("GET", `/session/${page.id}/element/${folder}/attribute/aria-expanded`)) !== "true") {
      await wd("POST", `/session/${page.id}/element/${folder}/click`, {});
    }
    await until("the folder's note in the tree", async () => {
      const files = await page.run(`return [...document.querySelectorAll('[data-testid="tree-file"]')].map((e) => e.textContent);`);
      return files.ok?.some((text) => text.includes("Compte rendu.md"));
    });
    await page.screenshot("07-second-launch");
  });
});

test("a recent folder opens from the open-folder screen", async () => {
  await withApp("recent", undefined, async (page) => {
    // The folder opened last comes first; the one before it follows.
    await page.waitFor('[data-testid="recent-folder"]');
    await until("the recent folders", async () => (await page.findAll('[data-testid="recent-folder"]')).length === 2);
    const [latest, earlier] = await page.findAll('[data-testid="recent-folder"]');
    assert.equal(await page.text(latest), fs.realpathSync(path.join(tmp, "Carnet d’été")));
    assert.equal(await page.text(earlier), fs.realpathSync(vault));
    const recentVault = earlier;
    await page.screenshot("08-recent");
    await wd("POST", `/session/${page.id}/element/${recentVault}/click`, {});
    const name = await page.waitFor('[data-testid="project-name"]');
    await until("the project's name", async () => (await page.text(name)) === "vault");
    await page.screenshot("09-reopened");
  });
});

test("closing the window with unsaved work asks natively; cancel keeps it, confirming closes it", async () => {
  const QUESTION = "Unsaved changes";
  await withApp("close", vault, async (page) => {
    const name = await page.waitFor('[data-testid="project-name"]');
    await until("the project's name", async () => (await page.text(name)) === "vault");
    // Unsaved work in two files: buffer edits through the editor's route.
    for (const file of ["notes/beta.md", "Welcome.md"]) {
      const edited = await page.run(
        `const call = (request) => window.__TAURI_INTERNALS__.invoke("api", { request });
         const file = arguments[0];
         return call({ method: "GET", path: "/api/files/content?path=" + encodeURIComponent(file) })
           .then((c) => call({ method: "PUT", path: "/api/files/buffer",
                               body: { path: file, text: c.body.text + "Unsaved line.\\n", base_hash: c.body.hash } }));`,
        file,
      );
      assert.equal(edited.ok?.body?.state?.dirty, true, JSON.stringify(edited));
    }
    const beta = fs.readFileSync(path.join(vault, "notes/beta.md"), "utf8");

    xwindow("close", "Redline");
    await until("the close question", () => windowNames().includes(QUESTION), 10_000);
    screenshotDisplay("09-close-question");
    assert.equal(await wd("GET", `/session/${page.id}/title`), "vault — Redline", "the window stayed open");

    // Closing the question is its Cancel.
    xwindow("close", QUESTION);
    await until("the question to go", () => !windowNames().includes(QUESTION), 10_000);
    await sleep(500);
    assert.ok(windowNames().includes("Redline"), "cancelled: the window stays");
    await page.screenshot("10-close-cancelled");

    // Asked again, Return takes the default answer: close anyway.
    xwindow("close", "Redline");
    await until("the close question again", () => windowNames().includes(QUESTION), 10_000);
    xwindow("key", QUESTION, "Return");
    await until("the window to close", () => !windowNames().includes("Redline"), 10_000);
    assert.equal(fs.readFileSync(path.join(vault, "notes/beta.md"), "utf8"), beta, "nothing was saved on the way out");
  });
});

test("another agent's proposal over MCP shows live in the open window", { skip: !process.env.REDLINE_MCP_PYTHON && "no REDLINE_MCP_PYTHON" }, async () => {
  const folder = path.join(tmp, "shared");
  fs.mkdirSync(folder);
  fs.writeFileSync(path.join(folder, "plan.md"), "# Plan\n\nStatus: draft\n");
  await withApp("mcp", folder, async (page) => {
    await page.waitFor('[data-testid="project-name"]', 30_000);
    // The app serves the folder to other agents and says so in its lock file.
    const projects = path.join(tmp, "data", "projects");
    const lock = () => fs.readdirSync(projects).map((d) => path.join(projects, d, "instance.json")).find((f) => fs.existsSync(f) && JSON.parse(fs.readFileSync(f, "utf8")).root === fs.realpathSync(folder));
    await until("the app's lock file", () => lock() !== undefined, 10_000);
    assert.equal(fs.statSync(lock()).mode & 0o777, 0o600, "readable by the user only");

    // An MCP client (the official Python SDK) proposes through `redline mcp`, bridged to the app.
    const edits = [{ file_path: "plan.md", operation: "replace", start_line: 3, end_line: 3, new_text: "Status: final\n", old_text: "Status: draft", rationale: null }];
    const out = execFileSync(process.env.REDLINE_MCP_PYTHON, [path.join(ROOT, "tests/mcp/propose.py"), REDLINE, folder, path.join(tmp, "data"), "desktop-agent", JSON.stringify(edits)], { encoding: "utf8" });
    const { proposed } = JSON.parse(out.trim().split("\n").at(-1));
    assert.equal(proposed.status, "pending_review");

    const source = await page.waitFor('[data-testid="review-source"]', 20_000);
    assert.equal(await page.text(source), "desktop-agent");
    await page.screenshot("11-mcp-proposal");
    assert.equal(fs.readFileSync(path.join(folder, "plan.md"), "utf8"), "# Plan\n\nStatus: draft\n", "nothing written before review");
  });
});
