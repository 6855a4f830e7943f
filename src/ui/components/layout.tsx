import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { applyTheme, savedTheme, type Theme } from "../lib/theme";
import { WarpChat } from "../pages/warp-chat";
import { followLink } from "../lib/router";
import { useCan, useSession } from "../session";

export interface NavItem {
  path: string;
  label: string;
  /** Any one of these opens the page. */
  permission: string | string[];
}

export const opens = (item: NavItem, can: (permission: string) => boolean) => [item.permission].flat().some(can);

export const NAV: NavItem[] = [
  { path: "/", label: "Overview", permission: "Logs:View" },
  { path: "/ui/logs", label: "Logs", permission: "Logs:View" },
  { path: "/ui/analytics", label: "Analytics", permission: "Logs:View" },
  { path: "/ui/playground", label: "Playground", permission: "Playground:Create" },
  { path: "/ui/providers", label: "Providers", permission: "ModelProvider:View" },
  { path: "/ui/governance", label: "Governance", permission: "VirtualKeys:View" },
  { path: "/ui/guardrails", label: "Guardrails", permission: "Guardrails:View" },
  { path: "/ui/prompts", label: "Prompts", permission: "Prompts:View" },
  { path: "/ui/mcp", label: "MCP", permission: "MCP:View" },
  { path: "/ui/virtual-servers", label: "Virtual servers", permission: "MCPVirtualServers:View" },
  { path: "/ui/agents", label: "Agents", permission: "Agents:View" },
  { path: "/ui/webhooks", label: "Webhooks", permission: "Webhooks:View" },
  { path: "/ui/log-sinks", label: "Log sinks", permission: "LogSinks:View" },
  { path: "/ui/alerts", label: "Alerts", permission: "Alerts:View" },
  { path: "/ui/plugins", label: "Plugins", permission: "Plugins:View" },
  { path: "/ui/lifecycles", label: "Lifecycles", permission: "Actors:View" },
  { path: "/ui/warp", label: "Warp", permission: "Warp:View" },
  { path: "/ui/access", label: "Access", permission: ["Users:View", "Roles:View", "APIKeys:View", "AuditLogs:View", "Config:View"] },
];

const isCurrent = (item: NavItem, path: string) => (item.path === "/" ? path === "/" : path === item.path || path.startsWith(`${item.path}/`));

/** Light, dark, or as the operating system says; remembered in this browser. */
function ThemePicker() {
  const [theme, setTheme] = useState(savedTheme);
  const choose = (next: Theme) => {
    applyTheme(next);
    setTheme(next);
  };
  return (
    <label class="theme-picker">
      <span class="visually-hidden">Theme</span>
      <select value={theme} onChange={(event) => choose(event.currentTarget.value as Theme)}>
        <option value="system">System theme</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </select>
    </label>
  );
}

/** The frame of every signed-in page: navigation (only what the user may open) and sign-out. */
export function Layout({ path, children }: { path: string; children: ComponentChildren }) {
  const { me, signOut } = useSession();
  const can = useCan();
  const [warpOpen, setWarpOpen] = useState(false);
  return (
    <div class="shell">
      <header class="topbar">
        <a class="brand" href="/" onClick={(event) => followLink(event, "/")}>
          <span class="brand-mark" aria-hidden="true" />
          Gateway
        </a>
        <div class="account">
          {can("Warp:Create") && (
            <button type="button" class="primary" onClick={() => setWarpOpen(true)} aria-haspopup="dialog">
              Ask Warp
            </button>
          )}
          <ThemePicker />
          <span class="muted">{me.type === "setup" ? "setup session" : me.id}</span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <nav class="sidebar" aria-label="Main">
        <ul>
          {NAV.filter((item) => opens(item, can)).map((item) => (
            <li key={item.path}>
              <a href={item.path} aria-current={isCurrent(item, path) ? "page" : undefined} onClick={(event) => followLink(event, item.path)}>
                {item.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main">{children}</main>
      {warpOpen && <WarpChat onClose={() => setWarpOpen(false)} />}
    </div>
  );
}

export const PageHeader = ({ title, children }: { title: string; children?: ComponentChildren }) => (
  <div class="page-header">
    <h1>{title}</h1>
    <div class="page-actions">{children}</div>
  </div>
);
