import type { DeclaredTool } from "../chat/tool-injection";
import { missingQueryAnswer, SEARCH_TOOL_NAME, searchAnswer, searchQuery } from "../search/offer";
import type { OfferedTool } from "../tools/catalogue";
import type { AnsweredHere } from "../tools/executor";
import type { ToolFilter } from "../tools/filter";

/** What tools/list shows: every offered tool, or, on a virtual server with tool search, `search_tools`, the pinned ones and those this session found. */
export function listedTools(filter: ToolFilter, offered: OfferedTool[], found: ReadonlySet<string> | undefined): DeclaredTool[] {
  const search = filter.virtual?.toolSearch;
  return search ? search.offer(offered, found ?? new Set()) : offered;
}

export const answersSearch = (filter: ToolFilter, name: string) => filter.virtual?.toolSearch !== undefined && name === SEARCH_TOOL_NAME;

/**
 * A `search_tools` call on a virtual server: the best matches under the server's names. A session
 * lists them from now on (`found`, and `listChanged` when it grew); any tool the server offers is
 * callable by name anyway, so a session-less caller calls what it found directly.
 */
export async function searchTools(filter: ToolFilter, offered: OfferedTool[], args: Record<string, unknown> | undefined, found: Set<string> | undefined, listChanged: () => void): Promise<AnsweredHere> {
  const query = searchQuery(args);
  if (!query) return missingQueryAnswer();
  const tools = await filter.virtual!.toolSearch!.search(offered, query);
  if (found) {
    const before = found.size;
    for (const tool of tools) found.add(tool.name);
    if (found.size > before) listChanged();
  }
  return searchAnswer(tools);
}
