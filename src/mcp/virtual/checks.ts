import type { VirtualServerAccess, VirtualServerPrompt, VirtualServerResource, VirtualServerTool } from "../../db/schema";
import type { McpToolSearch } from "../../db/schema/types";
import { badRequest } from "../../http/errors";
import { pickedToolName } from "./bundle";

export interface VirtualServerPicks {
  tools: VirtualServerTool[];
  toolSearch: McpToolSearch | null;
  resources: VirtualServerResource[];
  prompts: VirtualServerPrompt[];
  access: VirtualServerAccess;
}

/** What the checks look up: whether a client and a virtual key exist. */
export interface PickLookups {
  clientExists(name: string): boolean;
  virtualKeyExists(id: string): Promise<boolean>;
}

function checkClients(field: string, picks: ReadonlyArray<{ client: string }>, lookups: PickLookups): void {
  const missing = picks.findIndex((pick) => !lookups.clientExists(pick.client));
  if (missing >= 0) throw badRequest(`MCP client '${picks[missing]!.client}' does not exist`, `${field}[${missing}].client`);
}

/** Each served name once (`name`, else the upstream's own under `ownKey`), and each upstream item under one name only. */
function checkNames<Key extends "tool" | "prompt">(field: string, picks: ReadonlyArray<{ client: string; name?: string } & Record<Key, string>>, ownKey: Key): void {
  const names = new Map<string, number>();
  const upstream = new Map<string, number>();
  picks.forEach((pick, index) => {
    const own = pick[ownKey];
    const name = pick.name ?? own;
    const taken = names.get(name);
    if (taken !== undefined) throw badRequest(`the name '${name}' is already taken by ${field}[${taken}]: rename one of them`, `${field}[${index}].${pick.name === undefined ? ownKey : "name"}`);
    const key = `${pick.client}\u0000${own}`;
    const twice = upstream.get(key);
    if (twice !== undefined) throw badRequest(`'${own}' of MCP client '${pick.client}' is already picked as ${field}[${twice}]`, `${field}[${index}].${ownKey}`);
    names.set(name, index);
    upstream.set(key, index);
  });
}

/** One URI from one client only, and one client taken whole: a read must know where it goes. */
function checkResources(resources: VirtualServerResource[]): void {
  const seen = new Map<string, number>();
  resources.forEach((pick, index) => {
    const taken = seen.get(pick.uri);
    if (taken === undefined) return void seen.set(pick.uri, index);
    const message = pick.uri === "*" ? `only one MCP client's resources can be taken whole ('*'): resources[${taken}] already is` : `the URI '${pick.uri}' is already picked as resources[${taken}]`;
    throw badRequest(message, `resources[${index}].uri`);
  });
}

/** Pinned tools are named as the server serves them. */
function checkPinned(picks: VirtualServerPicks): void {
  const served = new Set(picks.tools.map(pickedToolName));
  const unknown = (picks.toolSearch?.pinned ?? []).findIndex((name) => !served.has(name));
  if (unknown >= 0) throw badRequest(`the server serves no tool named '${picks.toolSearch!.pinned![unknown]}'`, `tool_search.pinned[${unknown}]`);
}

/** A 400 naming the first pick that refers to nothing or collides with another. */
export async function checkPicks(picks: VirtualServerPicks, lookups: PickLookups): Promise<void> {
  checkClients("tools", picks.tools, lookups);
  checkClients("resources", picks.resources, lookups);
  checkClients("prompts", picks.prompts, lookups);
  checkNames("tools", picks.tools, "tool");
  checkNames("prompts", picks.prompts, "prompt");
  checkResources(picks.resources);
  checkPinned(picks);
  for (const [index, id] of picks.access.virtual_key_ids.entries()) {
    if (!(await lookups.virtualKeyExists(id))) throw badRequest(`virtual key '${id}' does not exist`, `access.virtual_key_ids[${index}]`);
  }
}
