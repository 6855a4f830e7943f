/**
 * The features bench/feature-costs.ts measures, each as two states of one gateway reached through
 * the management API: `off` (the feature not configured, or its plugin off) and `on` (configured
 * as a deployment would have it). `on` answers the headers a request needs to use the feature.
 */
import type { BenchServer } from "./processes";
import type { AdminFetch } from "./scenarios";

type Admin = (method?: string) => AdminFetch;

export interface Feature {
  name: string;
  /** How the table names the two states. */
  label: string;
  /** Once, before any round: what the feature needs to exist (a virtual key, a policy, disabled). */
  prepare?(admin: Admin, mock: BenchServer): Promise<void>;
  off(admin: Admin): Promise<void>;
  on(admin: Admin): Promise<Record<string, string> | void>;
  /** Puts back the bench's own state once the feature is measured (unset: `off`). */
  restore?(admin: Admin): Promise<void>;
}

const plugin = (admin: Admin, name: string, enabled: boolean, config?: Record<string, unknown>) => admin("PUT")(`/api/plugins/${name}`, config ? { enabled, config } : { enabled });

/** A built-in plugin on against off: what it costs a request while nothing of it is configured (or, for logs and metrics, what it does on every request). */
const pluginFeature = (name: string, label: string): Feature => ({
  name,
  label,
  off: async (admin) => void (await plugin(admin, name, false)),
  on: async (admin) => void (await plugin(admin, name, true)),
  restore: async (admin) => void (await plugin(admin, name, true)),
});

const idOf = (created: unknown, field: string) => ((created as Record<string, { id: string }>)[field] ?? (created as { id: string })).id;

/** Limits far above what the bench sends, so every check runs and none refuses. */
const NEVER_REACHED = { token_max_limit: 1_000_000_000, token_reset_duration: "1m", request_max_limit: 1_000_000_000, request_reset_duration: "1m" };

let virtualKey = "";
let mockUrl = "";
let guardrailId = "";
let ruleId = "";

export const FEATURES: Feature[] = [
  pluginFeature("logging", "request logs, content logged (plugin off → on)"),
  {
    name: "logging-no-content",
    label: "request logs without content (plugin off → on)",
    off: async (admin) => {
      await plugin(admin, "logging", false);
      await admin("PUT")("/api/config", { logs_store: { content_logging: false } });
    },
    on: async (admin) => void (await plugin(admin, "logging", true)),
    restore: async (admin) => {
      await admin("PUT")("/api/config", { logs_store: { content_logging: true } });
      await plugin(admin, "logging", true);
    },
  },
  pluginFeature("telemetry", "telemetry (plugin off → on)"),
  pluginFeature("governance", "governance, no virtual key (plugin off → on)"),
  {
    name: "virtual-key",
    label: "governance: a virtual key with budget and limits",
    prepare: async (admin) => {
      const created = (await admin()("/api/governance/virtual-keys", { name: "bench-features", budgets: [{ max_limit: 1_000_000, reset_duration: "1d" }], rate_limit: NEVER_REACHED })) as { virtual_key: { value: string } };
      virtualKey = created.virtual_key.value;
    },
    off: async () => {},
    on: async () => ({ "x-gw-vk": virtualKey }),
  },
  {
    name: "health",
    label: "health-aware routing (breakers off → on)",
    prepare: async (_admin, mock) => void (mockUrl = mock.url),
    off: async (admin) => void (await admin("PUT")("/api/providers/openai", { network_config: { base_url: `${mockUrl}/v1`, health: { enabled: false } } })),
    on: async (admin) => void (await admin("PUT")("/api/providers/openai", { network_config: { base_url: `${mockUrl}/v1` } })),
    restore: async (admin) => void (await admin("PUT")("/api/providers/openai", { network_config: { base_url: `${mockUrl}/v1` } })),
  },
  pluginFeature("guardrails", "guardrails, no policy (plugin off → on)"),
  {
    name: "guardrail-policy",
    label: "guardrails: no policy → one global policy (email, log)",
    prepare: async (admin) => {
      const created = await admin()("/api/guardrails", { name: "bench-one-check", enabled: false, checks: [{ type: "email", action: "log", stage: "input" }] });
      guardrailId = idOf(created, "guardrail");
    },
    off: async (admin) => void (await admin("PUT")(`/api/guardrails/${guardrailId}`, { enabled: false })),
    on: async (admin) => void (await admin("PUT")(`/api/guardrails/${guardrailId}`, { enabled: true })),
  },
  {
    name: "routing-rule",
    label: "routing: no rule → one global rule that matches",
    prepare: async (admin) => {
      const created = await admin()("/api/governance/routing-rules", { name: "bench-rule", enabled: false, cel_expression: 'model == "gpt-4o-mini"', targets: [{ provider: "openai", model: "gpt-4o-mini" }], scope: "global" });
      ruleId = idOf(created, "rule");
    },
    off: async (admin) => void (await admin("PUT")(`/api/governance/routing-rules/${ruleId}`, { enabled: false })),
    on: async (admin) => void (await admin("PUT")(`/api/governance/routing-rules/${ruleId}`, { enabled: true })),
  },
  pluginFeature("mcp", "MCP, no client (plugin off → on)"),
  pluginFeature("response_cache", "response cache, no key (plugin off → on)"),
  {
    name: "cache-miss",
    label: "response cache: a lookup that misses",
    off: async (admin) => void (await plugin(admin, "response_cache", true, {})),
    // Not stored, so every request misses: the lookup a new request pays.
    on: async (admin) => {
      await plugin(admin, "response_cache", true, { default_key: "bench" });
      return { "x-gw-cache-no-store": "true" };
    },
  },
  {
    // Measure with `--scenario "chat stream"`: the same stream asked for as resumable (held, its events stored) or not.
    name: "resumable-stream",
    label: "a stream kept resumable (no header → x-gw-resumable: true)",
    off: async () => {},
    on: async () => ({ "x-gw-resumable": "true" }),
  },
];
