import type { McpVirtualServerRow } from "../../db/schema";

export const virtualServerPath = (slug: string) => `/mcp/v/${slug}`;

export function virtualServerView(row: McpVirtualServerRow) {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    path: virtualServerPath(row.slug),
    tools: row.tools,
    resources: row.resources,
    prompts: row.prompts,
    access: row.access,
    tool_search: row.toolSearch,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
