import type { Database } from "../db/client";
import type { Governance } from "../governance";
import { guardrailPolicies } from "../db/schema";
import { reloadOnChange } from "../db/table-changes";
import { handleInference, type Inference } from "../inference/handle";
import type { BuiltinPlugin } from "../plugins";
import type { MetricsRegistry } from "../telemetry/metrics-registry";
import type { EnvReader } from "../config/env-reference";
import type { OutboundReach } from "../outbound/reach";
import { GUARDRAIL_CALLER, GuardrailHooks } from "./hooks";
import { GuardrailMetrics } from "./metrics";
import { GuardrailPolicyStore } from "./policy-store";
import { guardrailRoutes } from "./routes";
import type { GuardrailScope } from "../db/schema/types";
import type { SelfCall } from "./verdicts/model-check";


export interface GuardrailsOptions {
  db: Database;
  /** The pipeline model checks call through (resolved late: its hooks include guardrails). */
  inference: () => Inference;
  outbound: OutboundReach;
  /** `env.NAME` values in checks' headers, under the configuration's allow-list. */
  readEnv: EnvReader;
  metrics: MetricsRegistry;
  /** Where the virtual keys, teams, customers and routing rules policies attach to are looked up. */
  governance: Pick<Governance, "virtualKeys" | "organization" | "routingRules">;
}

const VERDICT_LABELS = ["guardrail", "check", "stage", "action"] as const;
const PATHS: Record<SelfCall["operation"], string> = { chat: "/v1/chat/completions", moderation: "/v1/moderations" };

function callSelf(inference: () => Inference) {
  return (call: SelfCall) => {
    const request = new Request(`http://gateway.internal${PATHS[call.operation]}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(call.body), signal: call.signal });
    return handleInference(inference(), { operation: call.operation, format: "openai", body: call.body, model: call.body.model, fallbacks: [], stream: false, request, internalCaller: GUARDRAIL_CALLER, parentRequestId: call.parentRequestId });
  };
}

/** Guardrails: the `guardrails` built-in plugin, /api/guardrails, and their counters in /metrics. */
export async function createGuardrails(options: GuardrailsOptions) {
  const { virtualKeys, organization, routingRules } = options.governance;
  const scopeExists = (scope: Exclude<GuardrailScope, "global">, id: string) =>
    Boolean(
      scope === "virtual_key" ? virtualKeys.keys.get(id) : scope === "team" ? organization.teams.get(id) : scope === "customer" ? organization.customers.get(id) : routingRules.rules.get(id),
    );
  const store = new GuardrailPolicyStore(options.db, { callSelf: callSelf(options.inference), outbound: options.outbound, readEnv: options.readEnv }, scopeExists);
  const watched = reloadOnChange(options.db, [guardrailPolicies], () => store.load());
  await store.load();
  const metrics = new GuardrailMetrics();
  options.metrics.counter({ name: "gateway_guardrail_verdicts_total", help: "Requests on which a guardrail check fired, by guardrail, check, stage (input, output) and action (block, redact, log).", labelNames: VERDICT_LABELS, collect: () => metrics.verdicts() });
  options.metrics.counter({ name: "gateway_guardrail_matches_total", help: "Matches guardrail checks found, by guardrail, check, stage and action.", labelNames: VERDICT_LABELS, collect: () => metrics.matches() });
  const builtin: BuiltinPlugin = {
    name: "guardrails",
    placement: "before-custom",
    // A check that breaks must not let through what it was set to stop.
    failClosed: true,
    create: () => new GuardrailHooks(store, metrics),
  };
  return { builtin, routes: guardrailRoutes(store, options.outbound), close: () => watched.stop() };
}
