import { useState } from "preact/hooks";
import { virtualServers } from "../api/endpoints";
import type { VirtualServer } from "../api/types";
import { useFeedback } from "../components/feedback";
import { SelectField } from "../components/fields";
import { PageHeader } from "../components/layout";
import { Empty, ErrorState, Loading } from "../components/states";
import { TableHead } from "../components/table-head";
import { CopyButton, DeleteButton, EditButton } from "../components/widgets";
import { formatCost } from "../lib/format";
import { useResource } from "../lib/use-resource";
import { useSave } from "../lib/use-save";
import { useCan } from "../session";
import { VirtualServerForm } from "./virtual-server-form";

const KEY_PLACEHOLDER = "sk-gw-your-virtual-key";
const count = (n: number, noun: string) => (n === 0 ? "" : `${n} ${noun}${n === 1 ? "" : "s"}`);

/** How each client is pointed at the server: a command or the file it reads, with the virtual key as a header. */
function snippets(server: VirtualServer): Record<string, string> {
  const url = `${window.location.origin}${server.path}`;
  const headers = { Authorization: `Bearer ${KEY_PLACEHOLDER}` };
  return {
    "Claude Code": `claude mcp add --transport http ${server.slug} ${url} --header "Authorization: Bearer ${KEY_PLACEHOLDER}"`,
    "Cursor (.cursor/mcp.json)": JSON.stringify({ mcpServers: { [server.slug]: { url, headers } } }, null, 2),
    "VS Code (.vscode/mcp.json)": JSON.stringify({ servers: { [server.slug]: { type: "http", url, headers } } }, null, 2),
  };
}

function ConnectionSnippet({ server }: { server: VirtualServer }) {
  const all = snippets(server);
  const [client, setClient] = useState(Object.keys(all)[0]!);
  const text = all[client]!;
  return (
    <div aria-label={`Connect to ${server.slug}`} role="group">
      <SelectField label={`Client for ${server.slug}`} value={client} onValue={setClient} options={Object.keys(all)} />
      <pre class="code-block" aria-label={`${client} snippet`}>
        {text}
      </pre>
      <CopyButton text={text} label="Copy snippet" />
    </div>
  );
}

/** The calls through the server and their cost, for those who may read the MCP log. */
function Usage({ slug }: { slug: string }) {
  const usage = useResource(() => virtualServers.usage(slug), [slug]);
  if (!usage.data) return null;
  const { calls, cost } = usage.data;
  return (
    <p class="small" aria-label={`Usage of ${slug}`}>
      {calls} tool call{calls === 1 ? "" : "s"} · {formatCost(cost)}
    </p>
  );
}

function ServerCard({ server, reload, onEdit }: { server: VirtualServer; reload(): void; onEdit(): void }) {
  const can = useCan();
  const { confirm } = useFeedback();
  const { save } = useSave(reload);
  const remove = async () => {
    if (await confirm(`Delete virtual server ${server.slug}?`, <p>Clients connected to {server.path} lose its tools.</p>)) await save(() => virtualServers.remove(server.id), `Virtual server ${server.slug} deleted`);
  };
  const { virtual_key_ids: keys, role_ids: roles = [], user_ids: users = [] } = server.access;
  const admitted = [count(keys.length, "virtual key"), count(roles.length, "role"), count(users.length, "user")].filter(Boolean).join(", ");
  return (
    <section class="card" aria-label={`Virtual server ${server.slug}`}>
      <div class="card-header">
        <div>
          <h2>{server.name}</h2>
          <p class="muted small">
            <code>{server.path}</code> · {admitted || "whoever may use /mcp"}
          </p>
          {server.description && <p>{server.description}</p>}
        </div>
        <div class="row-actions">
          {can("MCPVirtualServers:Update") && <EditButton name={server.slug} onEdit={onEdit} />}
          {can("MCPVirtualServers:Delete") && <DeleteButton name={server.slug} onDelete={remove} />}
        </div>
      </div>
      {can("MCPLogs:View") && <Usage slug={server.slug} />}
      <table aria-label={`Tools of ${server.slug}`}>
        <TableHead columns={["Served as", "Server", "Tool"]} />
        <tbody>
          {server.tools.map((tool) => (
            <tr key={`${tool.client}/${tool.tool}`}>
              <td>
                <code>{tool.name ?? tool.tool}</code>
              </td>
              <td>{tool.client}</td>
              <td>
                <code>{tool.tool}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {server.prompts.length + server.resources.length > 0 && (
        <p class="small muted">
          Also {server.prompts.length} prompt{server.prompts.length === 1 ? "" : "s"} and {server.resources.length} resource{server.resources.length === 1 ? "" : "s"}.
        </p>
      )}
      <ConnectionSnippet server={server} />
    </section>
  );
}

/** Virtual MCP servers: bundles of tools picked from the registered servers, each with its own address, names and access. */
export function VirtualServersPage() {
  const can = useCan();
  const list = useResource(virtualServers.list, []);
  const [form, setForm] = useState<{ editing?: VirtualServer }>();
  return (
    <>
      <PageHeader title="Virtual MCP servers" />
      <div class="toolbar">
        {can("MCPVirtualServers:Create") && (
          <button type="button" class="primary" onClick={() => setForm({})}>
            Add virtual server
          </button>
        )}
      </div>
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {!list.data && !list.error && <Loading />}
      {list.data?.length === 0 && (
        <Empty title="No virtual server yet">
          <p>A virtual server offers a team exactly the tools it needs, picked from every registered MCP server and renamed as you like, at its own address.</p>
        </Empty>
      )}
      {list.data?.map((server) => (
        <ServerCard key={server.id} server={server} reload={list.reload} onEdit={() => setForm({ editing: server })} />
      ))}
      {form && <VirtualServerForm editing={form.editing} reload={list.reload} onClose={() => setForm(undefined)} />}
    </>
  );
}
