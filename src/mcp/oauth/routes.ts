import { Elysia, t } from "elysia";
import { badRequest } from "../../http/errors";
import { htmlPage, replies, sentReplies } from "../../http/replies";
import type { McpClientConfig } from "../clients/config";
import type { McpClientRegistry } from "../clients/registry";
import type { CredentialOwner } from "../per-user/credentials";
import { ClientParams } from "../clients/schemas";
import type { McpOAuthConnections } from "./connections";

export const OAUTH_CALLBACK_PATH = "/api/mcp/oauth/callback";

/** The redirect URI registered with authorization servers, on the gateway's public address. */
export const callbackUrl = (base: string) => `${base}${OAUTH_CALLBACK_PATH}`;

/** Where the browser lands once a consent is through: the dashboard's MCP page. */
const AFTER_CONSENT = "/ui/mcp";

const ConsentStarted = t.Object(
  {
    authorization_url: t.String({ description: "Where the administrator consents, in a browser." }),
    redirect_uri: t.String({ description: "Where the authorization server sends the browser back: this gateway's callback." }),
  },
  { title: "McpOAuthConsentStarted" },
);

const CallbackQuery = t.Object({
  code: t.Optional(t.String()),
  state: t.Optional(t.String()),
  error: t.Optional(t.String()),
  error_description: t.Optional(t.String()),
});

/**
 * POST /api/mcp/client/{id}/oauth/connect answers the authorization URL an administrator opens
 * to consent; the authorization server sends the browser back to GET /api/mcp/oauth/callback.
 */
export const mcpOAuthRoutes = (registry: McpClientRegistry, connections: McpOAuthConnections, publicBaseUrl: string | undefined, completePerUser: (state: string, code: string, config: McpClientConfig, owner: CredentialOwner) => Promise<Response>) =>
  new Elysia({ name: "mcp-oauth" })
    .post(
      "/api/mcp/client/:id/oauth/connect",
      async ({ params, request }) => {
        const { config } = registry.require(params.id);
        const redirectUrl = callbackUrl(publicBaseUrl ?? new URL(request.url).origin);
        return { authorization_url: await connections.connect(config, redirectUrl), redirect_uri: redirectUrl };
      },
      { params: ClientParams, ...replies({ 200: ConsentStarted }, { summary: "Start an MCP client's OAuth consent", description: "The administrator opens the authorization URL; the client connects once the authorization server sends the browser back." }) },
    )
    .get(
      OAUTH_CALLBACK_PATH,
      async ({ query }) => {
        if (query.error) throw badRequest(`the authorization server did not grant access: ${query.error}${query.error_description ? ` (${query.error_description})` : ""}`, "error", "caller_mcp_oauth_denied");
        if (!query.state) throw badRequest("the callback carries no state", "state");
        if (!query.code) throw badRequest("the callback carries no authorization code", "code");
        const configOf = (id: string) => registry.get(id)?.config;
        const { key, config } = await connections.pending(query.state, configOf);
        if (key.owner) return completePerUser(query.state, query.code, config, key.owner);
        await connections.complete(query.state, query.code, configOf);
        return new Response(null, { status: 303, headers: { location: `${AFTER_CONSENT}?connected=${encodeURIComponent(config.name)}` } });
      },
      {
        query: CallbackQuery,
        ...sentReplies(
          {
            200: htmlPage("A caller's own consent went through (a per-user OAuth client): a page saying so."),
            303: { description: "An administrator's consent went through: back to the dashboard's MCP page.", location: "/ui/mcp?connected=<client name>" },
            410: htmlPage("A caller's consent came after its flow expired: a page saying to call the tool again."),
            502: htmlPage("The authorization server did not exchange the code: a page saying why."),
          },
          { summary: "Finish an MCP client's OAuth consent", description: "Where the authorization server sends the browser back." },
        ),
      },
    );
