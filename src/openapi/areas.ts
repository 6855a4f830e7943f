/** Security requirements by scheme name; an empty object means "no credential needed". */
type Security = Array<Record<string, string[]>>;

/** What the document groups routes by, and who may call each group. */
export interface Area {
  tag: string;
  description: string;
  security: Security;
}

const MANAGEMENT: Security = [{ setupToken: [] }, { sessionCookie: [] }, { managementBearer: [] }];
/** Inference needs a virtual key only when enforce_auth_on_inference is on. */
const INFERENCE: Security = [{ virtualKeyHeader: [] }, { virtualKeyBearer: [] }, { virtualKeyXApiKey: [] }, { virtualKeyGoogApiKey: [] }, { virtualKeyAzureApiKey: [] }, {}];
const PUBLIC: Security = [{}];

const area = (tag: string, description: string, security = MANAGEMENT): Area => ({ tag, description, security });

const SYSTEM = area("system", "Health, version, metrics and this document.", PUBLIC);
const INFERENCE_OPENAI = area("inference: OpenAI", "OpenAI's API (and Azure OpenAI's deployments) for any provider: name models `provider/model`.", INFERENCE);

/** First match wins: longer prefixes before the prefixes they start with. */
const PREFIXES: Array<[prefix: string, area: Area]> = [
  ["/health", SYSTEM],
  ["/api/version", SYSTEM],
  ["/api/openapi.json", SYSTEM],
  ["/api/docs", SYSTEM],
  ["/metrics", area("system", SYSTEM.description, [{ metricsToken: [] }, {}])],
  ["/api/session", area("access", "Dashboard sessions, the admin account, management API keys, roles and the audit log.")],
  ["/api/config/auth", area("access", "")],
  ["/api/api-keys", area("access", "")],
  ["/api/governance/rbac", area("access", "")],
  ["/api/governance/audit-logs", area("access", "")],
  ["/api/config", area("config", "The settings the gateway runs with; some change while it runs.")],
  ["/api/providers", area("providers", "Providers and their keys; secrets are encrypted at rest and answered redacted.")],
  ["/api/models", area("providers", "")],
  ["/api/governance", area("governance", "Virtual keys, teams, customers, budgets, rate limits, routing rules and pricing overrides.")],
  ["/api/teams", area("governance", "")],
  ["/api/logs", area("logs", "Request logs, their statistics, histograms and rankings, and the live feed.")],
  ["/api/ws", area("logs", "")],
  ["/api/log-sinks", area("logs", "")],
  ["/api/webhooks", area("webhooks", "Webhook endpoints, signed deliveries and redelivery.")],
  ["/api/alerts", area("alerts", "Alert rules as lifecycles, their notification channels and budget forecasts.")],
  ["/api/mcp", area("mcp", "MCP clients the gateway connects to, their tool calls' logs, and the gateway as an MCP server.")],
  ["/api/mcp-logs", area("mcp", "")],
  ["/mcp", area("mcp", "", INFERENCE)],
  ["/v1/mcp", area("mcp", "", INFERENCE)],
  ["/api/agents", area("a2a", "A2A agents behind the gateway, and their tasks.")],
  ["/agents", area("a2a", "", INFERENCE)],
  ["/api/plugins", area("plugins", "Plugins and the response cache.")],
  ["/api/cache", area("plugins", "")],
  ["/api/playground", area("playground", "The dashboard's playground: chat completions run as a chosen virtual key, through the same pipeline as `/v1`.")],
  ["/api/prompts", area("prompts", "Prompts kept out of application code: versions, labels and variables; run them under /v1/prompts.")],
  ["/api/warp", area("warp", "Warp, the dashboard agent that answers questions about the deployment's traffic.")],
  ["/v1/async", area("async", "Async inference jobs: submit, then poll or get a signed webhook.", INFERENCE)],
  ["/v1/streams", area("streams", "Resumable streams: replay a stream a client lost from where it was cut, follow it live, or cancel it.", INFERENCE)],
  ["/anthropic", area("inference: Anthropic", "Anthropic's Messages API (and its batches, files and skills) for any provider.", INFERENCE)],
  ["/claude-code", area("inference: Anthropic", "", INFERENCE)],
  ["/genai", area("inference: Gemini", "Gemini's API and Vertex AI's paths, as @google/genai calls them, for any provider.", INFERENCE)],
  ["/bedrock", area("inference: Bedrock", "Bedrock's Converse and InvokeModel for any provider.", INFERENCE)],
  ["/cohere", area("inference: Cohere", "Cohere v2 chat, embed and rerank for any provider.", INFERENCE)],
  ["/v1", INFERENCE_OPENAI],
  ["/openai", INFERENCE_OPENAI],
  ["/{framework}", area("inference: frameworks", "Every inference mount again under a framework's name (`/litellm`, `/langchain`, `/pydanticai`), for clients configured by framework.", INFERENCE)],
];

const OTHER = area("other", "Routes outside the areas above.");

const startsWithSegment = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}.`);

export function areaOf(path: string): Area {
  return PREFIXES.find(([prefix]) => startsWithSegment(path, prefix))?.[1] ?? OTHER;
}

/** Each tag once, with the description its first area gives. */
export function tagList(): Array<{ name: string; description: string }> {
  const tags = new Map<string, string>();
  for (const [, { tag, description }] of [...PREFIXES, ["", OTHER] as const]) if (!tags.get(tag)) tags.set(tag, description);
  return [...tags].map(([name, description]) => ({ name, description }));
}

export const SECURITY_SCHEMES = {
  setupToken: { type: "apiKey", in: "header", name: "X-Gateway-Setup-Token", description: "The setup token the gateway prints at first start: opens the management API until a dashboard admin exists." },
  sessionCookie: { type: "apiKey", in: "cookie", name: "gateway_session", description: "The dashboard's session, from POST /api/session/login." },
  managementBearer: { type: "http", scheme: "bearer", description: "A session token, a management API key (enterprise edition), or base64(username:password) of the admin." },
  virtualKeyHeader: { type: "apiKey", in: "header", name: "x-gw-vk", description: "A virtual key (sk-gw-…)." },
  virtualKeyBearer: { type: "http", scheme: "bearer", description: "A virtual key as OpenAI's SDKs send their key: Authorization: Bearer sk-gw-…" },
  virtualKeyXApiKey: { type: "apiKey", in: "header", name: "x-api-key", description: "A virtual key as Anthropic's SDK sends its key." },
  virtualKeyGoogApiKey: { type: "apiKey", in: "header", name: "x-goog-api-key", description: "A virtual key as @google/genai sends its key." },
  virtualKeyAzureApiKey: { type: "apiKey", in: "header", name: "api-key", description: "A virtual key as Azure OpenAI's SDKs send their key." },
  metricsToken: { type: "http", scheme: "bearer", description: "GATEWAY_METRICS_TOKEN (or telemetry.metrics_token); an allow-listed address needs none." },
} as const;
