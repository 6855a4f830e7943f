import { A2AError } from "@a2a-js/sdk/errors";
import { Elysia } from "elysia";
import { GatewayError, notFound } from "../http/errors";
import type { CallerIdentity } from "../inference/hooks";
import { type AgentCardJson, type Binding, gatewayAgentCard } from "./agent-card";
import type { RegisteredAgent } from "./agent-registry";
import type { AgentCallerAccess } from "./caller-access";
import type { A2ACall } from "./protocol/call";
import { type A2AFailure, failureFromA2AError, failureFromGateway } from "./protocol/failure";
import { callFromJsonRpc } from "./protocol/json-rpc-request";
import { jsonRpcFailure, jsonRpcResponse, restFailure, restResponse, type RpcId } from "./protocol/responses";
import { callFromRest } from "./protocol/rest-routes";
import { HTTP_EXTENSION_HEADER, requestedVersion } from "./protocol/version";
import { type ProxyDeps, proxyCall } from "./proxy";

export interface AgentProtocolDeps extends ProxyDeps {
  access: AgentCallerAccess;
}

type CardedAgent = RegisteredAgent & { card: AgentCardJson };

/** An unknown or disabled agent is an empty 404, whoever asks (spec 4.12). */
class AgentUnavailable extends Error {}

function failureOf(error: unknown): A2AFailure {
  if (error instanceof GatewayError) return failureFromGateway(error);
  if (error instanceof A2AError) return failureFromA2AError(error);
  throw error;
}

/**
 * The checks every protocol request passes, in order: the agent exists and is enabled, the
 * caller may reach it, and the agent's card (which says where and how to call it) is at hand.
 */
async function admit(deps: AgentProtocolDeps, name: string, request: Request): Promise<{ agent: CardedAgent; caller?: CallerIdentity }> {
  const registered = deps.registry.get(name);
  if (!registered?.enabled) throw new AgentUnavailable();
  const caller = await deps.access.admit(request.headers, name);
  const agent = await deps.registry.withCard(registered);
  if (!agent.card) {
    throw new GatewayError({ status: 502, errorType: "provider_agent_card_unavailable", message: `the card of agent '${name}' could not be fetched: ${agent.cardError ?? "unknown error"}` });
  }
  return { agent: agent as CardedAgent, caller };
}

/** Runs a protocol handler; whatever it throws becomes an empty 404 or the binding's error shape. */
async function answer(render: (failure: A2AFailure) => Response, handle: () => Promise<Response>): Promise<Response> {
  try {
    return await handle();
  } catch (error) {
    if (error instanceof AgentUnavailable) return new Response(null, { status: 404 });
    return render(failureOf(error));
  }
}

const agentBaseUrl = (request: Request, name: string) => `${new URL(request.url).origin}/agents/a2a/${encodeURIComponent(name)}`;

/** The path below `/agents/a2a/{name}/rest` (the first five segments, the empty one included), still percent-encoded. */
const restPathOf = (request: Request) => `/${new URL(request.url).pathname.split("/").slice(5).join("/")}`;

async function forward(deps: AgentProtocolDeps, request: Request, admitted: { agent: CardedAgent; caller?: CallerIdentity }, binding: Binding, call: A2ACall, rpcId?: RpcId) {
  return proxyCall(deps, {
    ...admitted,
    call,
    binding,
    version: requestedVersion(request.headers),
    extensions: request.headers.get(HTTP_EXTENSION_HEADER) ?? undefined,
    rpcId,
    signal: request.signal,
  });
}

/** The gateway as an A2A server for each registered agent: its card, the JSON-RPC binding and the HTTP+JSON binding. */
export const agentProtocolRoutes = (deps: AgentProtocolDeps) =>
  new Elysia({ name: "a2a-protocol" })
    .get("/agents/a2a/:name/.well-known/agent-card.json", ({ params, request }) =>
      answer(restFailure, async () => {
        const { agent } = await admit(deps, params.name, request);
        return Response.json(gatewayAgentCard(agent.card, agentBaseUrl(request, params.name), deps.access.keyRequired(params.name)));
      }),
    )
    .post(
      "/agents/a2a/:name/json-rpc",
      ({ params, request }) => {
        let rpcId: RpcId = null;
        return answer(
          (failure) => jsonRpcFailure(rpcId, failure),
          async () => {
            // Read before admission, so that a refusal answers with the request's id.
            const parsed = callFromJsonRpc(await request.text());
            rpcId = parsed.id;
            const admitted = await admit(deps, params.name, request);
            if ("failure" in parsed) return jsonRpcFailure(parsed.id, parsed.failure);
            return jsonRpcResponse(parsed.id, await forward(deps, request, admitted, "JSONRPC", parsed.call, parsed.id));
          },
        );
      },
      { parse: "none" },
    )
    .all(
      "/agents/a2a/:name/rest/*",
      ({ params, request }) =>
        answer(restFailure, async () => {
          const admitted = await admit(deps, params.name, request);
          const url = new URL(request.url);
          const call = callFromRest({ verb: request.method, path: restPathOf(request), query: url.searchParams, body: await request.text(), contentType: request.headers.get("content-type") });
          if (!call) throw notFound(`no A2A operation answers ${request.method} ${restPathOf(request)}`, "caller_route_not_found");
          return restResponse(call, await forward(deps, request, admitted, "HTTP+JSON", call));
        }),
      { parse: "none" },
    );
