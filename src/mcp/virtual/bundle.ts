import type { McpVirtualServerRow, VirtualServerAccess, VirtualServerPrompt, VirtualServerResource, VirtualServerTool } from "../../db/schema";
import { OfferedToolSearch } from "../search/offered-search";
import type { EmbedTexts } from "../search/vector-ranking";

/** A virtual server as requests read it: its picks indexed both ways, built once per write. */
export interface VirtualBundle {
  slug: string;
  name: string;
  description: string;
  access: VirtualServerAccess;
  /** The upstream clients it takes anything from. */
  clients: ReadonlySet<string>;
  /** Exposed tool name → the pick. */
  tools: ReadonlyMap<string, VirtualServerTool>;
  /** `client\0tool` → exposed name. */
  toolNames: ReadonlyMap<string, string>;
  prompts: ReadonlyMap<string, VirtualServerPrompt>;
  promptNames: ReadonlyMap<string, string>;
  resources: readonly VirtualServerResource[];
  /** Set when the server offers `search_tools` instead of every tool. */
  toolSearch?: OfferedToolSearch;
}

const pair = (client: string, name: string) => `${client}\u0000${name}`;

/** The name a pick is served under: its own, else the upstream's. */
export const pickedToolName = (pick: VirtualServerTool) => pick.name ?? pick.tool;
export const pickedPromptName = (pick: VirtualServerPrompt) => pick.name ?? pick.prompt;

export function bundleOf(row: McpVirtualServerRow, embed?: EmbedTexts): VirtualBundle {
  const tools = new Map(row.tools.map((pick) => [pickedToolName(pick), pick]));
  const prompts = new Map(row.prompts.map((pick) => [pickedPromptName(pick), pick]));
  return {
    slug: row.slug,
    name: row.name,
    description: row.description,
    access: row.access,
    clients: new Set([...row.tools, ...row.resources, ...row.prompts].map((pick) => pick.client)),
    tools,
    toolNames: new Map([...tools].map(([exposed, pick]) => [pair(pick.client, pick.tool), exposed])),
    prompts,
    promptNames: new Map([...prompts].map(([exposed, pick]) => [pair(pick.client, pick.prompt), exposed])),
    resources: row.resources,
    ...(row.toolSearch?.enabled ? { toolSearch: new OfferedToolSearch(row.toolSearch, embed) } : {}),
  };
}

export const exposedToolName = (bundle: VirtualBundle, client: string, tool: string) => bundle.toolNames.get(pair(client, tool));
export const exposedPromptOf = (bundle: VirtualBundle, client: string, prompt: string) => bundle.promptNames.get(pair(client, prompt));

export function toolOwner(bundle: VirtualBundle, exposed: string): { clientName: string; name: string } | undefined {
  const pick = bundle.tools.get(exposed);
  return pick && { clientName: pick.client, name: pick.tool };
}

export function promptOwner(bundle: VirtualBundle, exposed: string): { clientName: string; name: string } | undefined {
  const pick = bundle.prompts.get(exposed);
  return pick && { clientName: pick.client, name: pick.prompt };
}

/** A URI template as a pattern: each `{…}` expression stands for any text. */
function templateMatches(template: string, uri: string): boolean {
  if (!template.includes("{")) return false;
  const pattern = template.split(/\{[^}]*\}/).map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${pattern.join(".+?")}$`).test(uri);
}

/** Whether the bundle offers this resource (or template) of the client. */
export const picksResource = (bundle: VirtualBundle, client: string, uri: string) => bundle.resources.some((pick) => pick.client === client && (pick.uri === "*" || pick.uri === uri));

/** The client a read URI goes to: an exact pick, else a picked template it expands, else the client taken whole. */
export function resourceOwner(bundle: VirtualBundle, uri: string): { clientName: string; name: string } | undefined {
  const pick =
    bundle.resources.find((candidate) => candidate.uri === uri) ?? bundle.resources.find((candidate) => templateMatches(candidate.uri, uri)) ?? bundle.resources.find((candidate) => candidate.uri === "*");
  return pick && { clientName: pick.client, name: uri };
}
