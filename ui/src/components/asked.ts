// An answer of the engine to what a panel's fields say, asked again a
// moment after they last changed: what search and find and replace show
// as the person types.

import { useEffect, useState } from "preact/hooks";

/** The answer to `ask()` (`null` for nothing to ask), asked `delay` ms
 * after `deps` last changed; only the newest question's answer is kept,
 * and a failure is its message. `setAnswer` replaces the answer (a next
 * page taken in). */
export function useAsked<T>(ask: (() => Promise<T>) | null, deps: unknown[], delay = 150) {
  const [answer, setAnswer] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!ask) {
      setAnswer(null);
      setError(null);
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      ask().then(
        (a) => current && (setAnswer(a), setError(null)),
        (e) => current && (setAnswer(null), setError(e instanceof Error ? e.message : String(e))),
      );
    }, delay);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, deps);
  return { answer, setAnswer, error };
}
