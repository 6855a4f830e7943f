import { useState } from "preact/hooks";
import { mcp } from "../api/endpoints";
import type { McpClient, McpConnectionType } from "../api/types";
import { TimeChart } from "../components/chart";
import { useFeedback } from "../components/feedback";
import { SelectField, TextField } from "../components/fields";
import { PageHeader } from "../components/layout";
import { Panel } from "../components/panel";
import { Empty, ErrorState, Loading } from "../components/states";
import { formatCost, formatLatency, formatTime, listOf, pairs, pairsText } from "../lib/format";
import { useOpenApiSource } from "./mcp-openapi-source";
import { followLink } from "../lib/router";
import { useResource } from "../lib/use-resource";
import { messageOf, useSave } from "../lib/use-save";
import { useCan } from "../session";
import { TableHead } from "../components/table-head";
import { EditButton } from "../components/widgets";

function ClientForm({ editing, onClose, reload }: { editing?: McpClient; onClose(): void; reload(): void }) {
  const [name, setName] = useState(editing?.name ?? "");
  const [type, setType] = useState<McpConnectionType>(editing?.connection_type ?? "http");
  const [url, setUrl] = useState(editing?.connection_string ?? "");
  const [command, setCommand] = useState(editing?.stdio_config?.command ?? "");
  const [args, setArgs] = useState((editing?.stdio_config?.args ?? []).join(" "));
  const [headers, setHeaders] = useState(pairsText(editing?.headers ?? {}));
  const [oauth, setOauth] = useState(editing?.auth_type === "oauth");
  const [revision, setRevision] = useState<McpClient["protocol_version"]>(editing?.protocol_version ?? "auto");
  const [tools, setTools] = useState((editing?.tools_to_execute ?? ["*"]).join(", "));
  const { save, errorFor } = useSave(reload);
  const openapi = useOpenApiSource(editing, errorFor);
  const submit = async (event: Event) => {
    event.preventDefault();
    const input = {
      name: name.trim(),
      connection_type: type,
      ...(type === "stdio" ? { stdio_config: { command: command.trim(), args: args.split(" ").filter(Boolean) } } : type === "openapi" ? openapi.input() : { connection_string: url.trim() }),
      headers: pairs(headers),
      ...(type !== "stdio" && type !== "openapi" && oauth ? { auth_type: "oauth" as const } : editing?.auth_type === "oauth" ? { auth_type: "headers" as const } : {}),
      ...(type === "http" ? { protocol_version: revision } : {}),
      tools_to_execute: listOf(tools),
    };
    if (await save(() => (editing ? mcp.update(editing.id, input) : mcp.create(input)), `MCP server ${input.name} saved`)) onClose();
  };
  return (
    <Panel title={editing ? `Edit MCP server ${editing.name}` : "Add an MCP server"} onClose={onClose}>
      <form onSubmit={submit}>
        <TextField label="Name" required value={name} onValue={setName} hint="Letters, digits, underscores; its tools are exposed as name-tool." error={errorFor("name")} />
        <SelectField
          label="Transport"
          value={type}
          onValue={(value) => setType(value as McpConnectionType)}
          options={[
            { value: "http", label: "Streamable HTTP" },
            { value: "sse", label: "SSE" },
            { value: "stdio", label: "stdio (a local command)" },
            { value: "openapi", label: "OpenAPI document (an HTTP API)" },
          ]}
        />
        {type === "openapi" ? (
          openapi.fields
        ) : type === "stdio" ? (
          <>
            <TextField label="Command" required value={command} onValue={setCommand} error={errorFor("stdio_config")} />
            <TextField label="Arguments" value={args} onValue={setArgs} hint="Separated by spaces." />
          </>
        ) : (
          <>
            <TextField label="Server URL" type="url" required value={url} onValue={setUrl} error={errorFor("connection_string")} />
            <SelectField
              label="Authorization"
              value={oauth ? "oauth" : "headers"}
              onValue={(value) => setOauth(value === "oauth")}
              options={[
                { value: "headers", label: "Headers below, or none" },
                { value: "oauth", label: "OAuth 2.1 (connect once added)" },
              ]}
            />
            {type === "http" && (
              <SelectField
                label="MCP revision"
                value={revision}
                onValue={(value) => setRevision(value as McpClient["protocol_version"])}
                hint="Auto asks the server and speaks 2026-07-28 when it offers it, the 2025-11-25 handshake otherwise."
                error={errorFor("protocol_version")}
                options={[
                  { value: "auto", label: "Auto" },
                  { value: "2026-07-28", label: "2026-07-28 only" },
                  { value: "2025-11-25", label: "2025-11-25 handshake only" },
                ]}
              />
            )}
          </>
        )}
        <TextField label="Headers" value={headers} onValue={setHeaders} hint="name=value pairs sent with every request; stored encrypted." error={errorFor("headers")} />
        <TextField label="Tools to expose" value={tools} onValue={setTools} hint="Comma-separated tool names, * for all; empty exposes none." error={errorFor("tools_to_execute")} />
        <div class="actions">
          <button type="submit" class="primary">
            {editing ? "Save server" : "Add server"}
          </button>
        </div>
      </form>
    </Panel>
  );
}

/** The resources, resource templates and prompts a server offers beside its tools. */
function Catalogue({ client }: { client: McpClient }) {
  const { resources, resource_templates: templates, prompts } = client;
  if (resources.length + templates.length + prompts.length === 0)
    return <p class="muted">{client.state === "connected" ? "The server offers no resources and no prompts." : "Resources and prompts show once the gateway is connected."}</p>;
  return (
    <>
      {resources.length > 0 && (
        <table aria-label={`Resources of ${client.name}`}>
          <TableHead columns={["Resource", "URI", "Description", "Type"]} />
          <tbody>
            {resources.map((resource) => (
              <tr key={resource.uri}>
                <td>{resource.name}</td>
                <td>
                  <code>{resource.uri}</code>
                </td>
                <td>{resource.description}</td>
                <td class="muted">{resource.mime_type}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {templates.length > 0 && (
        <table aria-label={`Resource templates of ${client.name}`}>
          <TableHead columns={["Resource template", "URI template", "Description", "Type"]} />
          <tbody>
            {templates.map((template) => (
              <tr key={template.uri_template}>
                <td>{template.name}</td>
                <td>
                  <code>{template.uri_template}</code>
                </td>
                <td>{template.description}</td>
                <td class="muted">{template.mime_type}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {prompts.length > 0 && (
        <table aria-label={`Prompts of ${client.name}`}>
          <TableHead columns={["Prompt", "Description", "Arguments"]} />
          <tbody>
            {prompts.map((prompt) => (
              <tr key={prompt.name}>
                <td>
                  <code>{prompt.name}</code>
                </td>
                <td>{prompt.description}</td>
                <td>{prompt.arguments.length === 0 ? <span class="muted">none</span> : prompt.arguments.map((argument) => `${argument.name}${argument.required ? "" : " (optional)"}`).join(", ")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

const OAUTH_STATES = {
  needs_consent: { label: "needs consent", badge: "neutral", hint: "An administrator connects the server to its authorization server: Connect opens its consent page." },
  connected: { label: "authorized", badge: "ok", hint: "" },
  refresh_failed: { label: "refresh failed", badge: "bad", hint: "The gateway could not refresh its access token: connect again." },
} as const;

/** Where an OAuth server's connection to its authorization server stands. */
function OAuthStatus({ client }: { client: McpClient }) {
  if (client.oauth?.per_user) return <p class="small muted" aria-label={`OAuth of ${client.name}`}>OAuth 2.1 · each caller connects their own account when a call asks for it</p>;
  const connection = client.oauth?.connection;
  const shown = OAUTH_STATES[connection?.state ?? "needs_consent"];
  return (
    <p class="small" aria-label={`OAuth of ${client.name}`}>
      OAuth 2.1 <span class={`badge badge-${shown.badge}`}>{shown.label}</span>
      {connection?.access_token_expires_at && connection.state === "connected" && <span class="muted"> · token renewed before {formatTime(connection.access_token_expires_at)}</span>}
      {shown.hint && <span class="muted"> · {shown.hint}</span>}
      {connection?.last_error && connection.state !== "connected" && <span class="field-error"> {connection.last_error}</span>}
    </p>
  );
}

const exposes = (client: McpClient, tool: string) => client.tools_to_execute.includes("*") || client.tools_to_execute.includes(tool);

function ClientCard({ client, reload, onEdit }: { client: McpClient; reload(): void; onEdit(): void }) {
  const can = useCan();
  const { toast, confirm } = useFeedback();
  const { save } = useSave(reload);
  const reconnect = async () => {
    try {
      const after = await mcp.reconnect(client.id);
      toast(`${client.name} is ${after.state}`, after.state === "connected" ? "success" : "error");
      reload();
    } catch (error) {
      toast(messageOf(error), "error");
    }
  };
  const remove = async () => {
    if (await confirm(`Delete MCP server ${client.name}?`, <p>Its tools stop being offered to models and callers.</p>)) await save(() => mcp.remove(client.id), `MCP server ${client.name} deleted`);
  };
  const connectAccount = async () => {
    try {
      const { authorization_url } = await mcp.oauthConnect(client.id);
      window.location.assign(authorization_url);
    } catch (error) {
      toast(messageOf(error), "error");
    }
  };
  const exposedCount = client.tools.filter((tool) => exposes(client, tool.name)).length;
  return (
    <section class="card" aria-label={`MCP server ${client.name}`}>
      <div class="card-header">
        <div>
          <h2>
            {client.name} <span class={`badge badge-${client.state === "connected" ? "ok" : client.state === "error" || client.state === "disconnected" ? "bad" : "neutral"}`}>{client.state}</span>
          </h2>
          <p class="muted small">
            {client.connection_type} · {client.connection_string ?? client.stdio_config?.command ?? (client.openapi && "document given inline")}
          </p>
        </div>
        <div class="row-actions">
          {can("MCP:Update") && (
            <>
              {client.oauth && !client.oauth.per_user && (
                <button type="button" class={client.oauth.connection?.state === "connected" ? undefined : "primary"} onClick={connectAccount} aria-label={`Connect ${client.name}`}>
                  {client.oauth.connection?.state === "connected" ? "Connect again" : "Connect"}
                </button>
              )}
              <button type="button" onClick={reconnect}>
                Reconnect
              </button>
              <EditButton name={client.name} onEdit={onEdit} />
            </>
          )}
          {can("MCP:Delete") && (
            <button type="button" class="danger" onClick={remove} aria-label={`Delete ${client.name}`}>
              Delete
            </button>
          )}
        </div>
      </div>
      {client.oauth && <OAuthStatus client={client} />}
      {client.last_error && client.oauth?.connection?.state !== "needs_consent" && (
        <p class="field-error" role="alert">
          {client.last_error}
        </p>
      )}
      {client.tools_to_execute.length === 0 && (
        <p class="notice" role="note">
          This server exposes no tools: its list of tools to expose is empty, so no model or caller may use any of its {client.tools.length} tools. Edit it and list the tools (or *).
        </p>
      )}
      {client.tools.length === 0 ? (
        <p class="muted">{client.state === "connected" ? "The server lists no tools." : "Tools show once the gateway is connected."}</p>
      ) : (
        <table aria-label={`Tools of ${client.name}`}>
          <TableHead columns={[`Tool (${exposedCount} of ${client.tools.length} exposed)`, "Description", "Exposed"]} />
          <tbody>
            {client.tools.map((tool) => (
              <tr key={tool.name}>
                <td>
                  <code>{tool.name}</code>
                </td>
                <td>{tool.description}</td>
                <td>{exposes(client, tool.name) ? "yes" : <span class="muted">no</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Catalogue client={client} />
    </section>
  );
}

/** The per-user header flows still waiting for a caller's values. */
function PendingFlows({ clients }: { clients: McpClient[] }) {
  const flows = useResource(() => mcp.perUserFlows("pending"), [clients]);
  if (!clients.some((client) => client.auth_type === "per_user_headers" || client.oauth?.per_user) && !flows.data?.length) return null;
  return (
    <section class="card" aria-label="Per-user header flows">
      <h2>Callers asked for their own credentials</h2>
      {flows.error && <ErrorState error={flows.error} retry={flows.reload} />}
      {flows.data?.length === 0 && <p class="muted">No caller is waiting: a flow opens when a caller without stored values uses a per-user server, and ends when the values are submitted.</p>}
      {!!flows.data?.length && (
        <table aria-label="Flows waiting for values">
          <TableHead columns={["Server", "Caller", "Waiting for", "Opened", "Expires"]} />
          <tbody>
            {flows.data.map((flow) => (
              <tr key={flow.id}>
                <td>{flow.mcp_client.name}</td>
                <td>{flow.flow_mode === "virtual_key" ? <>virtual key <code>{flow.virtual_key_id}</code></> : "an MCP session"}</td>
                <td>{flow.kind === "oauth" ? "consent at the authorization server" : flow.required_header_keys.map((key) => <code key={key}>{key} </code>)}</td>
                <td>{formatTime(flow.created_at)}</td>
                <td>{formatTime(flow.expires_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Servers() {
  const can = useCan();
  const list = useResource(mcp.clients, []);
  const [form, setForm] = useState<{ editing?: McpClient }>();
  return (
    <>
      <div class="toolbar">
        {can("MCP:Create") && (
          <button type="button" class="primary" onClick={() => setForm({})}>
            Add MCP server
          </button>
        )}
        <button type="button" onClick={list.reload}>
          Refresh
        </button>
      </div>
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {!list.data && !list.error && <Loading />}
      {list.data?.length === 0 && (
        <Empty title="No MCP server yet">
          <p>Add an MCP server (over HTTP, SSE or a local command): the gateway connects to it and offers its tools to models, to /v1/mcp/tool/execute and through its own /mcp endpoint.</p>
        </Empty>
      )}
      {list.data?.map((client) => (
        <ClientCard key={client.id} client={client} reload={list.reload} onEdit={() => setForm({ editing: client })} />
      ))}
      {list.data && <PendingFlows clients={list.data} />}
      {form && <ClientForm editing={form.editing} reload={list.reload} onClose={() => setForm(undefined)} />}
    </>
  );
}

function ToolCalls() {
  const [status, setStatus] = useState("");
  const [tool, setTool] = useState("");
  const query = { status: status || undefined, tool_names: tool || undefined, limit: 100 };
  const calls = useResource(() => Promise.all([mcp.logs(query), mcp.costHistogram({ ...query, limit: undefined })]), [status, tool]);
  const [logs, histogram] = calls.data ?? [];
  const times = histogram?.buckets.map((bucket) => new Date(bucket.timestamp).getTime() / 1000) ?? [];
  return (
    <>
      <div class="filters filter-row" role="search" aria-label="Tool call filters">
        <TextField label="Tool names" value={tool} onValue={setTool} placeholder="server-tool, …" />
        <SelectField
          label="Status"
          value={status}
          onValue={setStatus}
          options={[
            { value: "", label: "Any status" },
            { value: "success", label: "Success" },
            { value: "error", label: "Error" },
            { value: "processing", label: "Processing" },
          ]}
        />
      </div>
      {calls.error && <ErrorState error={calls.error} retry={calls.reload} />}
      {!calls.data && !calls.error && <Loading />}
      {histogram && histogram.buckets.some((bucket) => bucket.total_cost > 0) && <TimeChart title="Cost of tool calls" times={times} series={[{ label: "cost", values: histogram.buckets.map((bucket) => bucket.total_cost), color: "#10b981" }]} format={formatCost} />}
      {logs?.length === 0 && (
        <Empty title="No tool call yet">
          <p>Calls appear here as models, /v1/mcp/tool/execute or /mcp run the servers' tools.</p>
        </Empty>
      )}
      {!!logs?.length && (
        <div class="table-wrap">
          <table aria-label="Tool calls">
            <TableHead columns={["Time", "Tool", "Status", "Result", { label: "Latency", number: true }, { label: "Cost", number: true }]} />
            <tbody>
              {logs.map((log) => (
                <tr key={log.id}>
                  <td>{formatTime(log.timestamp)}</td>
                  <td>
                    <code>{log.tool_name}</code>
                    <div class="muted small">{log.server_label}</div>
                  </td>
                  <td>
                    <span class={`badge badge-${log.status === "success" ? "ok" : log.status === "error" ? "bad" : "neutral"}`}>{log.status}</span>
                  </td>
                  <td class="small">{log.error_message ?? log.result}</td>
                  <td class="number">{formatLatency(log.latency)}</td>
                  <td class="number">{formatCost(log.cost)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/** MCP servers (their connection, tools and which are exposed) and the log of tool calls. */
export function McpPage({ path }: { path: string }) {
  const can = useCan();
  const onCalls = path.endsWith("/tool-calls");
  return (
    <>
      <PageHeader title="MCP" />
      <nav class="tabs" aria-label="MCP sections">
        <a href="/ui/mcp" aria-current={onCalls ? undefined : "page"} onClick={(event) => followLink(event, "/ui/mcp")}>
          Servers
        </a>
        {can("MCPLogs:View") && (
          <a href="/ui/mcp/tool-calls" aria-current={onCalls ? "page" : undefined} onClick={(event) => followLink(event, "/ui/mcp/tool-calls")}>
            Tool calls
          </a>
        )}
      </nav>
      {onCalls ? <ToolCalls /> : <Servers />}
    </>
  );
}
