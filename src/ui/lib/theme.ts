export type Theme = "system" | "light" | "dark";

const STORAGE_KEY = "gateway-theme";

/** The theme this browser chose last; `system` (follow the operating system) until one is chosen. */
export function savedTheme(): Theme {
  const saved = localStorage.getItem(STORAGE_KEY);
  return saved === "light" || saved === "dark" ? saved : "system";
}

/** Sets the page's colours (styles.css reads data-theme) and remembers the choice in this browser. */
export function applyTheme(theme: Theme, remember = true): void {
  if (theme === "system") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  if (!remember) return;
  if (theme === "system") localStorage.removeItem(STORAGE_KEY);
  else localStorage.setItem(STORAGE_KEY, theme);
}
