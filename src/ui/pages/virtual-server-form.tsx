import { useState } from "preact/hooks";
import { mcp, virtualKeys, virtualServers } from "../api/endpoints";
import type { McpClient, VirtualServer, VirtualServerInput, VirtualServerPrompt, VirtualServerTool } from "../api/types";
import { Checkbox, TextField } from "../components/fields";
import { Panel } from "../components/panel";
import { ToolSearchFields, toolSearchDraftOf, toolSearchOf } from "../components/tool-search-fields";
import { ErrorState, Loading } from "../components/states";
import { TableHead } from "../components/table-head";
import { useResource } from "../lib/use-resource";
import { useSave } from "../lib/use-save";
import { AccessFields, accessDraftOf, accessOf, toggledIn } from "./virtual-server-access";

type Picks<Pick> = Map<string, Pick>;
const keyOf = (client: string, name: string) => `${client}/${name}`;
const picksOf = <Pick,>(picks: Pick[], key: (pick: Pick) => string): Picks<Pick> => new Map(picks.map((pick) => [key(pick), pick]));
const toggled = <Pick,>(picks: Picks<Pick>, key: string, pick: Pick | undefined): Picks<Pick> => {
  const next = new Map(picks);
  if (pick) next.set(key, pick);
  else next.delete(key);
  return next;
};

/** One server's tools: a checkbox to take each, and the name it is served under (blank keeps its own). */
function ToolPicker({ client, picks, onPicks }: { client: McpClient; picks: Picks<VirtualServerTool>; onPicks(next: Picks<VirtualServerTool>): void }) {
  if (client.tools.length === 0) return <p class="muted small">{client.name} lists no tools yet.</p>;
  return (
    <table aria-label={`Tools of ${client.name}`}>
      <TableHead columns={["Include", "Tool", "Served as"]} />
      <tbody>
        {client.tools.map((tool) => {
          const key = keyOf(client.name, tool.name);
          const pick = picks.get(key);
          return (
            <tr key={key}>
              <td>
                <input type="checkbox" aria-label={`Include ${client.name} ${tool.name}`} checked={!!pick} onChange={(event) => onPicks(toggled(picks, key, event.currentTarget.checked ? { client: client.name, tool: tool.name } : undefined))} />
              </td>
              <td>
                <code>{tool.name}</code>
                <div class="muted small">{tool.description}</div>
              </td>
              <td>
                <input
                  aria-label={`Name for ${client.name} ${tool.name}`}
                  placeholder={tool.name}
                  disabled={!pick}
                  value={pick?.name ?? ""}
                  onInput={(event) => pick && onPicks(toggled(picks, key, { ...pick, name: event.currentTarget.value.trim() || undefined }))}
                />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** One server's prompts and resources (templates too), each taken by a checkbox under its own name. */
function OtherPicks({ client, prompts, resources, onPrompts, onResources }: { client: McpClient; prompts: Picks<VirtualServerPrompt>; resources: Set<string>; onPrompts(next: string[]): void; onResources(next: Set<string>): void }) {
  const uris = [...client.resources.map((resource) => resource.uri), ...client.resource_templates.map((template) => template.uri_template)];
  const chosenPrompts = client.prompts.filter((prompt) => prompts.has(keyOf(client.name, prompt.name))).map((prompt) => prompt.name);
  return (
    <>
      {client.prompts.map((prompt) => (
        <Checkbox key={prompt.name} label={`Prompt ${prompt.name}`} checked={chosenPrompts.includes(prompt.name)} onChecked={(checked) => onPrompts(checked ? [...chosenPrompts, prompt.name] : chosenPrompts.filter((name) => name !== prompt.name))} />
      ))}
      {uris.map((uri) => (
        <Checkbox key={uri} label={`Resource ${uri}`} checked={resources.has(keyOf(client.name, uri))} onChecked={(checked) => onResources(toggledIn(resources, keyOf(client.name, uri), checked))} />
      ))}
    </>
  );
}

function useComposition(editing?: VirtualServer) {
  const [tools, setTools] = useState(picksOf(editing?.tools ?? [], (pick) => keyOf(pick.client, pick.tool)));
  const [prompts, setPrompts] = useState(picksOf(editing?.prompts ?? [], (pick) => keyOf(pick.client, pick.prompt)));
  const [resources, setResources] = useState(new Set((editing?.resources ?? []).map((pick) => keyOf(pick.client, pick.uri))));
  const [access, setAccess] = useState(accessDraftOf(editing?.access));
  const setClientPrompts = (client: string, names: string[]) =>
    setPrompts(new Map([...[...prompts].filter(([, pick]) => pick.client !== client), ...names.map((prompt) => [keyOf(client, prompt), prompts.get(keyOf(client, prompt)) ?? { client, prompt }] as const)]));
  const picked = () => ({
    tools: [...tools.values()],
    prompts: [...prompts.values()],
    resources: [...resources].map((key) => ({ client: key.slice(0, key.indexOf("/")), uri: key.slice(key.indexOf("/") + 1) })),
    access: accessOf(access),
  });
  return { tools, setTools, prompts, setClientPrompts, resources, setResources, access, setAccess, picked };
}

/** Compose a virtual server: its slug and description, the tools, prompts and resources it takes from each server, and who may connect. */
export function VirtualServerForm({ editing, onClose, reload }: { editing?: VirtualServer; onClose(): void; reload(): void }) {
  const [slug, setSlug] = useState(editing?.slug ?? "");
  const [name, setName] = useState(editing?.name ?? "");
  const [description, setDescription] = useState(editing?.description ?? "");
  const composition = useComposition(editing);
  const [toolSearch, setToolSearch] = useState(toolSearchDraftOf(editing?.tool_search));
  const catalogue = useResource(() => Promise.all([mcp.clients(), virtualKeys.list()]), []);
  const { save, errorFor } = useSave(reload);
  const submit = async (event: Event) => {
    event.preventDefault();
    const input: VirtualServerInput = { slug: slug.trim(), ...(name.trim() ? { name: name.trim() } : {}), description, ...composition.picked(), tool_search: toolSearchOf(toolSearch) };
    if (await save(() => (editing ? virtualServers.update(editing.id, input) : virtualServers.create(input)), `Virtual server ${input.slug} saved`)) onClose();
  };
  const [clients, keys] = catalogue.data ?? [];
  const pickError = errorFor("tools") ?? errorFor("prompts") ?? errorFor("resources");
  return (
    <Panel title={editing ? `Edit virtual server ${editing.slug}` : "Add a virtual server"} onClose={onClose} wide>
      <form onSubmit={submit}>
        <TextField label="Slug" required value={slug} onValue={setSlug} hint="Lowercase letters, digits, - and _: clients connect to /mcp/v/{slug}." error={errorFor("slug")} />
        <TextField label="Title" value={name} onValue={setName} hint="Shown to clients; default the slug." error={errorFor("name")} />
        <TextField label="Description" value={description} onValue={setDescription} hint="Sent to clients as the server's instructions." />
        {catalogue.error && <ErrorState error={catalogue.error} retry={catalogue.reload} />}
        {!catalogue.data && !catalogue.error && <Loading />}
        <fieldset>
          <legend>Tools, prompts and resources</legend>
          {pickError && (
            <p class="field-error" role="alert">
              {pickError}
            </p>
          )}
          {clients?.length === 0 && <p class="muted">Register an MCP server on the MCP page first: a virtual server picks from their tools.</p>}
          {clients?.map((client) => (
            <section key={client.id} aria-label={`Picks from ${client.name}`}>
              <h3>{client.name}</h3>
              <ToolPicker client={client} picks={composition.tools} onPicks={composition.setTools} />
              <OtherPicks client={client} prompts={composition.prompts} resources={composition.resources} onPrompts={(names) => composition.setClientPrompts(client.name, names)} onResources={composition.setResources} />
            </section>
          ))}
        </fieldset>
        <ToolSearchFields draft={toolSearch} onDraft={setToolSearch} field="tool_search" errorFor={errorFor} pinnedHint="Names this server serves, comma-separated: listed from the start; search_tools finds the rest." />
        <fieldset>
          <legend>Who may connect</legend>
          <p class="field-hint">Nothing ticked: whoever may use /mcp. Otherwise only the ticked keys, roles and users (users connect with their dashboard session token).</p>
          {errorFor("access") && (
            <p class="field-error" role="alert">
              {errorFor("access")}
            </p>
          )}
          <AccessFields keys={keys} draft={composition.access} onDraft={composition.setAccess} />
        </fieldset>
        <div class="actions">
          <button type="submit" class="primary">
            {editing ? "Save virtual server" : "Add virtual server"}
          </button>
        </div>
      </form>
    </Panel>
  );
}
