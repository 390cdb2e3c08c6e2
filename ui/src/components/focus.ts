// Where the keyboard goes when a panel opens: into the panel, never left
// in the note behind it (a key typed there would change the note).

import { useLayoutEffect, useRef } from "preact/hooks";

/** A ref for the element a panel focuses as it opens; the focus goes back
 * to what had it (the editor, a tree row) when the panel closes. The
 * `autofocus` attribute is not enough: a browser honours it only for the
 * first element a page shows, not for one added later. */
export function useFocusOnOpen<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useLayoutEffect(() => {
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    ref.current?.focus();
    return () => {
      if (before?.isConnected && !before.closest("[role=dialog]")) before.focus();
    };
  }, []);
  return ref;
}
