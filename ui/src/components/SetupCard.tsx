// The setup card: shown in the sidebar while no model can run jobs. It
// lists what this machine offers — local servers that answered, keys in
// the environment, a field for a key, the bundled offline model — and
// picking one saves it as the settings.

import { useState } from "preact/hooks";
import type { LocalServer, ProviderKind } from "../api/types";
import { choose } from "../state/setup";
import { overlay, setup } from "../state/store";

const PROVIDERS: Record<ProviderKind, string> = { openai: "OpenAI", anthropic: "Anthropic" };

export function SetupCard() {
  const s = setup.value;
  const [provider, setProvider] = useState<ProviderKind>("openai");
  const [key, setKey] = useState("");
  if (!s || s.ready) return null;
  const saveKey = async () => {
    const given = key.trim();
    if (!given) return;
    setKey("");
    await choose({ kind: "remote", provider, key: given }, PROVIDERS[provider]);
  };
  return (
    <div class="setup" role="region" aria-label="Set up a model" data-testid="setup-card">
      <h3>Set up a model</h3>
      <p class="muted" data-testid="setup-problems">
        {s.problems.join(" · ")}
      </p>
      {s.local_servers.map((server) => (
        <FoundServer key={server.base_url} server={server} />
      ))}
      {s.env_keys.map((k) => (
        <div class="setup-row" key={k.provider}>
          <span>
            <b>{PROVIDERS[k.provider]}</b> key in {k.env_var}
          </span>
          <button data-testid="setup-env-key" onClick={() => void choose({ kind: "remote", provider: k.provider, key: null }, `${PROVIDERS[k.provider]} (${k.model})`)}>
            Use
          </button>
        </div>
      ))}
      <form
        class="setup-row"
        onSubmit={(e) => {
          e.preventDefault();
          void saveKey();
        }}
      >
        <select aria-label="Provider" data-testid="setup-key-provider" value={provider} onChange={(e) => setProvider(e.currentTarget.value as ProviderKind)}>
          {Object.entries(PROVIDERS).map(([id, name]) => (
            <option key={id} value={id}>
              {name}
            </option>
          ))}
        </select>
        <input type="password" autoComplete="off" aria-label="API key" placeholder="API key" data-testid="setup-key" value={key} onInput={(e) => setKey(e.currentTarget.value)} />
        <button type="submit" disabled={!key.trim()}>
          Save key
        </button>
      </form>
      {s.bundled && (
        <div class="setup-row" data-testid="setup-bundled">
          <span class="muted">{s.bundled.label}</span>
          <button onClick={() => void choose({ kind: "bundled" }, "the bundled offline model")} title={s.bundled.running ? "Use it" : "Start it (a few seconds) and use it"}>
            {s.bundled.running ? "Use" : "Start"}
          </button>
        </div>
      )}
      {s.local_servers.length === 0 && !s.bundled && (
        <p class="muted">
          No local model server answered (Ollama, LM Studio, llama.cpp, vLLM on their usual ports). For an offline demo, run <code>scripts/run</code>, which starts the bundled model.
        </p>
      )}
      <button class="link" onClick={() => (overlay.value = "settings")}>
        More in Settings
      </button>
    </div>
  );
}

function FoundServer({ server }: { server: LocalServer }) {
  const [model, setModel] = useState(server.models[0] ?? "");
  return (
    <form
      class="setup-row"
      data-testid="setup-server"
      onSubmit={(e) => {
        e.preventDefault();
        void choose({ kind: "local_server", base_url: server.base_url, model }, `${server.label} (${model})`);
      }}
    >
      <span title={server.base_url}>
        <b>{server.label}</b> <span class="muted">{server.base_url.replace(/^https?:\/\//, "").replace(/\/v1$/, "")}</span>
      </span>
      <input list={`models-${server.base_url}`} aria-label={`${server.label} model`} value={model} placeholder="model" onInput={(e) => setModel(e.currentTarget.value)} />
      <datalist id={`models-${server.base_url}`}>
        {server.models.map((m) => (
          <option key={m} value={m} />
        ))}
      </datalist>
      <button type="submit" disabled={!model.trim()}>
        Use
      </button>
    </form>
  );
}
