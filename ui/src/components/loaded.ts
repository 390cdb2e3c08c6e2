// Something loaded on first use — a view's module, whose code the window's
// first paint should not wait for, or an answer of the engine that never
// changes (which build this is) — for a component to draw once it is in.

import { useEffect, useState } from "preact/hooks";

/** What `load` brings, once it has; `null` until then. */
export function useLoaded<M>(load: () => Promise<M>): M | null {
  const [module, setModule] = useState<M | null>(null);
  useEffect(() => {
    let live = true;
    void load().then((m) => live && setModule(() => m));
    return () => {
      live = false;
    };
  }, []);
  return module;
}
