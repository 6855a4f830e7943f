import { eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { type McpVirtualServerRow, mcpVirtualServers } from "../../db/schema";
import { conflict } from "../../http/errors";
import { RowCache } from "../../governance/stores/row-cache";
import { bundleOf, type VirtualBundle } from "./bundle";
import { checkPicks, type PickLookups } from "./checks";
import type { EmbedTexts } from "../search/vector-ranking";
import type { VirtualServerCreate, VirtualServerUpdate } from "./schemas";

/** Virtual servers in libSQL, held in memory with each one's bundle by slug for the request path. */
export class VirtualServerStore {
  readonly rows = new RowCache<McpVirtualServerRow>("virtual server");
  private bySlug = new Map<string, VirtualBundle>();

  constructor(
    private readonly db: Database,
    private readonly lookups: PickLookups,
    private readonly embed?: EmbedTexts,
  ) {}

  async load(): Promise<void> {
    await this.rows.reload(() => this.db.select().from(mcpVirtualServers));
    this.reindex();
  }

  /** The bundle served at /mcp/v/{slug}; a Map lookup, nothing when none is configured. */
  bundle(slug: string): VirtualBundle | undefined {
    return this.bySlug.get(slug);
  }

  async create(input: VirtualServerCreate): Promise<McpVirtualServerRow> {
    const now = new Date();
    const row = await this.checked({ id: crypto.randomUUID(), createdAt: now, updatedAt: now, ...this.fieldsOf(input) });
    await this.db.insert(mcpVirtualServers).values(row);
    return this.remember(row);
  }

  async update(id: string, changes: VirtualServerUpdate): Promise<McpVirtualServerRow> {
    const current = this.rows.require(id);
    const row = await this.checked({ ...current, ...this.fieldsOf({ ...current, tool_search: current.toolSearch, ...changes }), updatedAt: new Date(Math.max(Date.now(), current.updatedAt.getTime() + 1)) });
    await this.db.update(mcpVirtualServers).set(row).where(eq(mcpVirtualServers.id, id));
    return this.remember(row);
  }

  async remove(id: string): Promise<McpVirtualServerRow> {
    const row = this.rows.require(id);
    await this.db.delete(mcpVirtualServers).where(eq(mcpVirtualServers.id, id));
    this.rows.delete(id);
    this.reindex();
    return row;
  }

  private fieldsOf(input: VirtualServerCreate) {
    return {
      slug: input.slug,
      name: input.name ?? input.slug,
      description: input.description ?? "",
      tools: input.tools ?? [],
      resources: input.resources ?? [],
      prompts: input.prompts ?? [],
      toolSearch: input.tool_search ?? null,
      access: { virtual_key_ids: input.access?.virtual_key_ids ?? [], role_ids: input.access?.role_ids ?? [], user_ids: input.access?.user_ids ?? [] },
    };
  }

  private async checked(row: McpVirtualServerRow): Promise<McpVirtualServerRow> {
    const holder = this.bySlug.get(row.slug) && this.rows.all().find((other) => other.slug === row.slug);
    if (holder && holder.id !== row.id) throw conflict(`a virtual server with the slug '${row.slug}' already exists`, "slug");
    await checkPicks(row, this.lookups);
    return row;
  }

  private remember(row: McpVirtualServerRow): McpVirtualServerRow {
    this.rows.set(row);
    this.reindex();
    return row;
  }

  private reindex(): void {
    this.bySlug = new Map(this.rows.all().map((row) => [row.slug, bundleOf(row, this.embed)]));
  }
}
