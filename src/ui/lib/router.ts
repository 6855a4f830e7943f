import { useEffect, useState } from "preact/hooks";

const NAVIGATED = "gateway:navigated";

/** Client routes live under /ui/ (no API does); the overview is the app's root, `/`. */
export function navigate(to: string, replace = false): void {
  if (to === location.pathname + location.search) return;
  if (replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  dispatchEvent(new Event(NAVIGATED));
}

export function useLocation(): { path: string; search: URLSearchParams } {
  const [, redraw] = useState(0);
  useEffect(() => {
    const changed = () => redraw((count) => count + 1);
    addEventListener("popstate", changed);
    addEventListener(NAVIGATED, changed);
    return () => {
      removeEventListener("popstate", changed);
      removeEventListener(NAVIGATED, changed);
    };
  }, []);
  return { path: location.pathname, search: new URLSearchParams(location.search) };
}

/** A plain link whose click stays in the app (a modified click still opens a tab). */
export function followLink(event: MouseEvent, to: string): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(to);
}
