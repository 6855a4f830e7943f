import { Elysia, t } from "elysia";
import { FLOWS_PATH } from "./auth-required";
import { type LookupApiKey, requireManagementApiKey } from "./management-api-key";
import { replies } from "../../http/replies";
import { PerUserFlow, PerUserFlowList, PerUserFlowSubmitted } from "./replies";
import { describeFlow, type FlowDeps, listFlows, submitFlow } from "./submission";

const FlowParams = t.Object({ id: t.String() });
const FlowListQuery = t.Object({ state: t.Optional(t.Union([t.Literal("pending"), t.Literal("verifying"), t.Literal("expired")])) });
/** `{headers: {name: value}}`, or the map of names to values itself. */
const SubmissionBody = t.Record(t.String(), t.Unknown());

/** GET /api/mcp/per-user-headers/flows (filtered by state), GET/PUT /api/mcp/per-user-headers/flows/{id} (spec 4.13). */
export const perUserHeaderRoutes = (deps: FlowDeps, lookupApiKey: LookupApiKey) =>
  new Elysia({ name: "mcp-per-user-headers", prefix: FLOWS_PATH })
    .get("", ({ query }) => listFlows(deps, query.state), { query: FlowListQuery, ...replies({ 200: PerUserFlowList }, { summary: "List per-user header flows", description: "The flows waiting for a caller's values or consent, or expired unanswered." }) })
    .get("/:id", ({ params }) => describeFlow(deps, params.id), { params: FlowParams, ...replies({ 200: PerUserFlow }, { summary: "Get a per-user header flow", description: "Which header keys to fill in; 410 once it has expired." }) })
    .put(
      "/:id",
      ({ params, body }) => submitFlow(deps, params.id, body),
      // In transform, before validation: who is asking is settled before what they sent.
      {
        params: FlowParams,
        body: SubmissionBody,
        transform: ({ request }) => requireManagementApiKey(request.headers, lookupApiKey),
        ...replies({ 200: PerUserFlowSubmitted }, { summary: "Submit a caller's header values", description: "Checked against the MCP server first: 422 when it refuses them, 410 once the flow has expired." }),
      },
    );
