import type { Operation } from "../../operations";
import type { ProviderAdapter } from "../types";

const COHERE_PATHS: Partial<Record<Operation, string>> = {
  chat: "/chat",
  embedding: "/embed",
  rerank: "/rerank",
};

/** Cohere's v2 API at `{base_url}/chat|embed|rerank`, the key as a bearer token; chat streams when its body says so. */
export const cohere: ProviderAdapter = {
  format: "cohere",
  operations: new Set(Object.keys(COHERE_PATHS) as Operation[]),
  keyOptional: false,
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
