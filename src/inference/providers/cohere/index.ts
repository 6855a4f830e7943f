import type { Operation } from "../../../upstream/operations";
import type { ProviderAdapter, UpstreamTarget } from "../../../upstream/adapter";

const COHERE_PATHS: Partial<Record<Operation, string>> = {
  chat: "/chat",
  embedding: "/embed",
  rerank: "/rerank",
};

function bearerOf(target: UpstreamTarget): Record<string, string> {
  return { ...target.network.extra_headers, ...(target.key?.secret ? { authorization: `Bearer ${target.key.secret}` } : {}) };
}

/** Cohere's v2 API at `{base_url}/chat|embed|rerank`, the key as a bearer token; chat streams when its body says so. */
export const cohere: ProviderAdapter = {
  format: "cohere",
  operations: new Set(Object.keys(COHERE_PATHS) as Operation[]),
  keyOptional: false,
  listModels: {
    // The model list lives at the API's root, beside the versioned paths the base URL names.
    call: (target) => ({ url: `${(target.baseUrl ?? "").replace(/\/+$/, "").replace(/\/v\d+$/, "")}/v1/models?page_size=1000`, method: "GET", headers: bearerOf(target) }),
    ids: (body) => ((body as { models?: Array<{ name?: unknown }> }).models ?? []).map((model) => model.name).filter((name): name is string => typeof name === "string"),
  },
  buildCall(operation, target, body, stream) {
    if (!target.baseUrl) throw new Error("provider has no base_url");
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: stream ? "text/event-stream" : "application/json",
      ...target.network.extra_headers,
    };
    if (target.key?.secret) headers.authorization = `Bearer ${target.key.secret}`;
    const upstreamBody = operation === "chat" ? { ...body, model: target.model, stream } : { ...body, model: target.model };
    return { url: `${target.baseUrl.replace(/\/+$/, "")}${COHERE_PATHS[operation]!}`, headers, body: JSON.stringify(upstreamBody) };
  },
};
