import { A2A_PROTOCOL_VERSION, AGENT_CARD_PATH } from "@a2a-js/sdk";
import { type Static, Type as t } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { guardedFetch } from "../outbound/guarded-fetch";
import type { OutboundPolicy } from "../outbound/host-check";

export type AgentCardJson = Record<string, unknown>;

/** The bindings the gateway speaks, upstream and to callers. gRPC is not proxied. */
export type Binding = "JSONRPC" | "HTTP+JSON";
const BINDINGS: readonly Binding[] = ["JSONRPC", "HTTP+JSON"];

const open = { additionalProperties: true } as const;
const CardInterfaces = t.Object(
  {
    supportedInterfaces: t.Array(
      t.Object({ url: t.String({ minLength: 1 }), protocolBinding: t.String(), protocolVersion: t.Optional(t.String()), tenant: t.Optional(t.String()) }, open),
    ),
  },
  open,
);
type CardInterface = Static<typeof CardInterfaces>["supportedInterfaces"][number];

/** An upstream endpoint the gateway can call: a 1.x JSON-RPC or HTTP+JSON interface of the card. */
export interface UpstreamInterface {
  binding: Binding;
  url: string;
  version?: string;
  tenant?: string;
}

const SERVED_MAJOR = A2A_PROTOCOL_VERSION.split(".")[0]!;
const speaksServedMajor = (version: string | undefined) => !version || version.split(".")[0] === SERVED_MAJOR;

function asUpstream(entry: CardInterface): UpstreamInterface | undefined {
  const binding = BINDINGS.find((candidate) => candidate === entry.protocolBinding);
  if (!binding || !speaksServedMajor(entry.protocolVersion) || !URL.canParse(entry.url)) return undefined;
  return { binding, url: entry.url, version: entry.protocolVersion || undefined, tenant: entry.tenant || undefined };
}

/** The card's usable interfaces, in the card's order of preference. */
export function usableInterfaces(card: AgentCardJson): UpstreamInterface[] {
  if (!Value.Check(CardInterfaces, card)) return [];
  return card.supportedInterfaces.flatMap((entry) => asUpstream(entry) ?? []);
}

/** Where an agent publishes its card: the URL itself when it names a JSON file, else the well-known path under it. */
export function cardUrlOf(agentUrl: string): string {
  if (new URL(agentUrl).pathname.endsWith(".json")) return agentUrl;
  return `${agentUrl.replace(/\/+$/, "")}/${AGENT_CARD_PATH}`;
}

const VIRTUAL_KEY_SCHEME = "gateway_virtual_key";

const BINDING_PATHS: Record<Binding, string> = { JSONRPC: "json-rpc", "HTTP+JSON": "rest" };

/** What the card declares where a virtual key is required. */
const VIRTUAL_KEY_SECURITY = {
  securitySchemes: {
    [VIRTUAL_KEY_SCHEME]: {
      apiKeySecurityScheme: {
        description: "A gateway virtual key; also accepted as `Authorization: Bearer`, `x-api-key` or `x-goog-api-key`.",
        location: "header",
        name: "x-gw-vk",
      },
    },
  },
  securityRequirements: [{ schemes: { [VIRTUAL_KEY_SCHEME]: { list: [] } } }],
};

/**
 * The card the gateway serves for an agent: the upstream's, with the gateway's own endpoints
 * (both bindings, the upstream's preferred one first, since the gateway translates between
 * them), the gateway's virtual key as the security scheme when one is required (and no scheme
 * when callers without a key pass: a card says what is enforced), and no upstream signature
 * (the rewritten card would not match it), upstream security or 0.3-era endpoint fields.
 */
export function gatewayAgentCard(card: AgentCardJson, agentBaseUrl: string, keyRequired: boolean): AgentCardJson {
  const preferred = usableInterfaces(card)[0]?.binding ?? "JSONRPC";
  const ordered = [preferred, ...BINDINGS.filter((binding) => binding !== preferred)];
  const {
    signatures: _signatures,
    url: _url,
    preferredTransport: _preferred,
    additionalInterfaces: _additional,
    securitySchemes: _schemes,
    securityRequirements: _requirements,
    security: _security,
    ...rest
  } = card;
  return {
    ...rest,
    supportedInterfaces: ordered.map((binding) => ({ url: `${agentBaseUrl}/${BINDING_PATHS[binding]}`, protocolBinding: binding, protocolVersion: A2A_PROTOCOL_VERSION })),
    ...(keyRequired ? VIRTUAL_KEY_SECURITY : {}),
  };
}

const CARD_FETCH_TIMEOUT_MS = 10_000;

/** Fetches an agent's card; throws an Error whose message says what went wrong. */
export async function fetchAgentCard(agentUrl: string, headers: Record<string, string>, policy: OutboundPolicy): Promise<AgentCardJson> {
  const url = cardUrlOf(agentUrl);
  const response = await guardedFetch(url, { headers: { ...headers, accept: "application/json" }, signal: AbortSignal.timeout(CARD_FETCH_TIMEOUT_MS) }, policy);
  if (!response.ok) throw new Error(`agent card at ${url} answered ${response.status}`);
  const card: unknown = await response.json().catch(() => undefined);
  if (typeof card !== "object" || card === null || Array.isArray(card)) throw new Error(`agent card at ${url} is not a JSON object`);
  if (usableInterfaces(card as AgentCardJson).length === 0) {
    throw new Error(`agent card at ${url} offers no A2A ${SERVED_MAJOR}.x JSON-RPC or HTTP+JSON interface`);
  }
  return card as AgentCardJson;
}
