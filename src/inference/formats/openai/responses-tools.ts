import { badRequest } from "../../../http/errors";
import type { HostedTool, ToolDefinition } from "../../canonical";

/**
 * A Responses API request's tools as a chat provider takes them. Function tools pass as they are;
 * a `namespace` (a group of function tools, Codex's `multi_agent_v1`) becomes its function tools
 * named `<namespace>__<tool>`, a name every provider accepts, and calls to them go back to the
 * client under their own name and namespace; `web_search` becomes a hosted tool that each format
 * writes as its own search, or that translate.ts drops where the provider has none.
 */

type Item = Record<string, unknown>;

/** The one name a namespace's tool has towards a chat provider. */
export const flatToolName = (namespace: string, name: string) => `${namespace}__${name}`;

/** The Responses API's web search tools, dated or not. */
const WEB_SEARCH = /^web_search(_preview)?(_\d{4}_\d{2}_\d{2})?$/;

const textOf = (value: unknown) => (typeof value === "string" ? value : undefined);

function nameOf(tool: Item, param: string): string {
  const name = tool.name;
  if (typeof name !== "string" || name === "") throw badRequest("name must be a non-empty string", `${param}.name`);
  return name;
}

function functionTool(tool: Item, param: string, namespace?: { name: string; description?: string }): ToolDefinition {
  if (tool.type !== "function") throw badRequest(`tool type '${String(tool.type)}' runs only on OpenAI's Responses API; other providers take function tools`, `${param}.type`);
  const name = nameOf(tool, param);
  const description = [namespace?.description, textOf(tool.description)].filter(Boolean).join("\n\n");
  return {
    type: "function",
    function: {
      name: namespace ? flatToolName(namespace.name, name) : name,
      ...(description ? { description } : {}),
      ...(tool.parameters ? { parameters: tool.parameters as Record<string, unknown> } : {}),
      ...(typeof tool.strict === "boolean" ? { strict: tool.strict } : {}),
    },
  };
}

const objectAt = (value: unknown, param: string): Item => {
  if (!value || typeof value !== "object" || Array.isArray(value)) throw badRequest("must be an object", param);
  return value as Item;
};

function namespaceTools(tool: Item, param: string): ToolDefinition[] {
  const namespace = { name: nameOf(tool, param), description: textOf(tool.description) };
  if (!Array.isArray(tool.tools)) throw badRequest("a namespace's tools must be an array", `${param}.tools`);
  return tool.tools.map((inner, index) => functionTool(objectAt(inner, `${param}.tools[${index}]`), `${param}.tools[${index}]`, namespace));
}

function webSearchOf(tool: Item): HostedTool {
  const domains = (tool.filters as { allowed_domains?: unknown } | null | undefined)?.allowed_domains;
  return { type: "web_search", ...(Array.isArray(domains) && domains.length > 0 ? { allowed_domains: domains.map(String) } : {}) };
}

/** The function tools and hosted tools of a Responses request's `tools`. */
export function bridgedToolsOf(tools: unknown): { tools?: ToolDefinition[]; hosted_tools?: HostedTool[] } {
  if (tools === undefined || tools === null) return {};
  if (!Array.isArray(tools)) throw badRequest("tools must be an array", "tools");
  const functions: ToolDefinition[] = [];
  const hosted: HostedTool[] = [];
  for (const [index, raw] of tools.entries()) {
    const param = `tools[${index}]`;
    const tool = objectAt(raw, param);
    if (tool.type === "namespace") functions.push(...namespaceTools(tool, param));
    else if (typeof tool.type === "string" && WEB_SEARCH.test(tool.type)) hosted.push(webSearchOf(tool));
    else functions.push(functionTool(tool, param));
  }
  const names = new Set<string>();
  for (const [index, { function: fn }] of functions.entries()) {
    if (names.has(fn.name)) throw badRequest(`two tools are named '${fn.name}' once a namespace's tools are named <namespace>__<tool>; rename one`, `tools[${index}].name`);
    names.add(fn.name);
  }
  return { ...(functions.length > 0 ? { tools: functions } : {}), ...(hosted.length > 0 ? { hosted_tools: hosted } : {}) };
}

/** A function call's name as the client's tools name it: its own name, and its namespace where it has one. */
export type ClientToolName = { name: string; namespace?: string };

/**
 * How the client names each flattened tool, from the tools it sent; undefined when it sent no
 * namespace (the common case costs one scan of the tool list).
 */
export function clientToolNames(clientBody: Item): ((name: string) => ClientToolName) | undefined {
  const tools = clientBody.tools;
  if (!Array.isArray(tools) || !tools.some((tool) => (tool as Item | null)?.type === "namespace")) return undefined;
  const byFlatName = new Map<string, ClientToolName>();
  for (const tool of tools as Item[]) {
    if (tool?.type !== "namespace" || typeof tool.name !== "string" || !Array.isArray(tool.tools)) continue;
    for (const inner of tool.tools as Item[]) {
      if (typeof inner?.name === "string") byFlatName.set(flatToolName(tool.name, inner.name), { name: inner.name, namespace: tool.name });
    }
  }
  return (name) => byFlatName.get(name) ?? { name };
}

/** A function call item's name towards a chat provider: flattened when the client named a namespace. */
export function calledName(item: Item, param: string): string {
  const name = nameOf(item, param);
  const namespace = item.namespace;
  if (namespace === undefined || namespace === null) return name;
  if (typeof namespace !== "string" || namespace === "") throw badRequest("namespace must be a non-empty string", `${param}.namespace`);
  return flatToolName(namespace, name);
}
