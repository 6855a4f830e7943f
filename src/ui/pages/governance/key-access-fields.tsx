import type { McpToolGrant } from "../../api/types";
import { Checkbox, TextField } from "../../components/fields";
import { listOf } from "../../lib/format";

/** One text per MCP client: the tools the key may call there, as typed. */
export type McpDraft = Record<string, string>;

export const mcpDraftOf = (grants: McpToolGrant[], clients: string[]): McpDraft =>
  Object.fromEntries(clients.map((client) => [client, (grants.find((grant) => grant.mcp_client_name === client)?.tools_to_execute ?? []).join(", ")]));

/**
 * The key's MCP grants from the form: a client with text is listed with those tools; a client
 * left as it was keeps its grant exactly (a listed client with no tool, say), and grants for
 * clients the form does not show are kept.
 */
export function mcpGrantsOf(draft: McpDraft, original: McpToolGrant[]): McpToolGrant[] {
  const unchanged = mcpDraftOf(original, Object.keys(draft));
  const shown = Object.entries(draft).flatMap(([client, text]) => {
    const kept = original.find((grant) => grant.mcp_client_name === client);
    if (kept && text === unchanged[client]) return [kept];
    return listOf(text).length ? [{ mcp_client_name: client, tools_to_execute: listOf(text) }] : [];
  });
  return [...shown, ...original.filter((grant) => !(grant.mcp_client_name in draft))];
}

export function McpToolFields({ draft, onDraft }: { draft: McpDraft; onDraft(draft: McpDraft): void }) {
  const clients = Object.keys(draft);
  if (clients.length === 0) return null;
  return (
    <fieldset>
      <legend>MCP tools this key may call</legend>
      <p class="muted small">All empty: every client and tool. Otherwise only the clients filled in, each with its tools by name, or * for all of them.</p>
      <div class="grid-2">
        {clients.map((client) => (
          <TextField key={client} label={`Tools on ${client}`} value={draft[client] ?? ""} placeholder="none" onValue={(text) => onDraft({ ...draft, [client]: text })} />
        ))}
      </div>
    </fieldset>
  );
}

/** A grant of `*` reaches every agent; grants naming agents no longer registered are kept. */
export function AgentGrantFields({ grants, agents, onGrants }: { grants: string[]; agents: string[]; onGrants(grants: string[]): void }) {
  const toggle = (agent: string) => (checked: boolean) => onGrants(checked ? [...grants, agent] : grants.filter((grant) => grant !== agent));
  return (
    <fieldset>
      <legend>A2A agents this key may reach</legend>
      <p class="muted small">A key reaches no agent until it is granted one: its callers get 403 policy_agent_not_granted.</p>
      <Checkbox label="Every agent" checked={grants.includes("*")} onChecked={toggle("*")} />
      {agents.map((agent) => (
        <Checkbox key={agent} label={agent} checked={grants.includes(agent)} onChecked={toggle(agent)} />
      ))}
    </fieldset>
  );
}
