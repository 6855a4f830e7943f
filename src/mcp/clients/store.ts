import { eq } from "drizzle-orm";
import type { SecretBox } from "../../crypto/secret-box";
import type { Database } from "../../db/client";
import { type McpClientRow, mcpClients } from "../../db/schema";
import { conflict } from "../../http/errors";
import { redactSecret } from "../../provider-registry/key-secrets";
import { configFromInput, inputFromConfig, type McpClientConfig, type OAuthClientSettings } from "./config";
import { mergeOpenApi, sourceOf } from "../openapi/settings";
import type { McpClientCreate, McpClientUpdate } from "./schemas";

interface Secrets {
  headers: Record<string, string>;
  envs: Record<string, string>;
  /** Rows written before OAuth support have none. */
  oauth?: OAuthClientSettings;
  /** openapi clients: values by security scheme name. */
  openapiCredentials?: Record<string, string>;
}

/** A written-back redacted value means "keep the stored one". */
function keepRedacted(incoming: Record<string, string> | undefined, stored: Record<string, string>): Record<string, string> | undefined {
  if (!incoming) return undefined;
  return Object.fromEntries(Object.entries(incoming).map(([name, value]) => [name, stored[name] !== undefined && value === redactSecret(stored[name]) ? stored[name] : value]));
}

const keepRedactedValue = (incoming: string | undefined, stored: string | undefined) => (stored !== undefined && incoming === redactSecret(stored) ? stored : incoming);

/** The client an update would leave: the changes over the stored configuration, redacted values written back kept. */
export function mergedInput(current: McpClientConfig, changes: McpClientUpdate): McpClientCreate {
  const base = inputFromConfig(current);
  const merged: McpClientCreate = {
    ...base,
    ...changes,
    headers: keepRedacted(changes.headers, current.headers) ?? base.headers,
    stdio_config: changes.stdio_config ? { ...changes.stdio_config, envs: keepRedacted(changes.stdio_config.envs, current.stdio?.envs ?? {}) } : base.stdio_config,
    oauth: changes.oauth ? { ...changes.oauth, client_secret: keepRedactedValue(changes.oauth.client_secret, current.oauth.clientSecret) } : base.oauth,
  };
  if (merged.connection_type !== "openapi" || !current.openapi) return merged;
  const credentials = keepRedacted(changes.openapi?.credentials, current.openapi.credentials);
  return { ...merged, ...mergeOpenApi(current.openapi, base, { ...changes, openapi: changes.openapi && { ...changes.openapi, credentials } }) };
}

/** MCP client configurations in libSQL, header values and stdio envs sealed with the secret box. */
export class McpClientStore {
  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
  ) {}

  async list(): Promise<McpClientConfig[]> {
    const rows = await this.db.select().from(mcpClients).orderBy(mcpClients.createdAt);
    return rows.map((row) => this.fromRow(row));
  }

  async create(input: McpClientCreate, privateNetworkAllowed: boolean): Promise<McpClientConfig> {
    await this.assertNameFree(input.name);
    const now = new Date();
    const config = configFromInput(crypto.randomUUID(), input, { createdAt: now, updatedAt: now }, privateNetworkAllowed);
    await this.db.insert(mcpClients).values(this.toRow(config));
    return config;
  }

  /** `privateNetworkAllowed` is the writer's when the changes carry an address; otherwise it stays. */
  async update(current: McpClientConfig, changes: McpClientUpdate, privateNetworkAllowed = current.privateNetworkAllowed): Promise<McpClientConfig> {
    if (changes.name !== undefined && changes.name !== current.name) await this.assertNameFree(changes.name);
    const merged = mergedInput(current, changes);
    const config = configFromInput(current.id, merged, { createdAt: current.createdAt, updatedAt: new Date() }, privateNetworkAllowed);
    await this.db.update(mcpClients).set(this.toRow(config)).where(eq(mcpClients.id, current.id));
    return config;
  }

  async remove(id: string): Promise<void> {
    await this.db.delete(mcpClients).where(eq(mcpClients.id, id));
  }

  private async assertNameFree(name: string): Promise<void> {
    const taken = await this.db.select({ id: mcpClients.id }).from(mcpClients).where(eq(mcpClients.name, name)).get();
    if (taken) throw conflict(`an MCP client named '${name}' already exists`, "name");
  }

  private toRow(config: McpClientConfig): McpClientRow {
    const secrets: Secrets = { headers: config.headers, envs: config.stdio?.envs ?? {}, oauth: config.oauth, ...(config.openapi ? { openapiCredentials: config.openapi.credentials } : {}) };
    return {
      id: config.id,
      name: config.name,
      connectionType: config.connectionType,
      connectionString: config.connectionString ?? null,
      privateNetworkAllowed: config.privateNetworkAllowed,
      stdioLaunch: config.stdio ? { command: config.stdio.command, args: config.stdio.args } : null,
      protocolVersion: config.protocolVersion,
      openapiSource: config.openapi ? sourceOf(config.openapi) : null,
      authType: config.authType,
      sealedSecrets: this.box.seal(JSON.stringify(secrets)),
      perUserHeaderKeys: config.perUserHeaderKeys,
      toolsToExecute: config.toolsToExecute,
      toolsToAutoExecute: config.toolsToAutoExecute,
      toolPricing: config.toolPricing,
      createdAt: config.createdAt,
      updatedAt: config.updatedAt,
    };
  }

  private fromRow(row: McpClientRow): McpClientConfig {
    const secrets = JSON.parse(this.box.open(row.sealedSecrets)) as Secrets;
    return {
      id: row.id,
      name: row.name,
      connectionType: row.connectionType,
      connectionString: row.connectionString ?? undefined,
      privateNetworkAllowed: row.privateNetworkAllowed,
      stdio: row.stdioLaunch ? { ...row.stdioLaunch, envs: secrets.envs } : undefined,
      protocolVersion: row.protocolVersion,
      openapi: row.openapiSource ? { ...row.openapiSource, credentials: secrets.openapiCredentials ?? {} } : undefined,
      authType: row.authType,
      headers: secrets.headers,
      perUserHeaderKeys: row.perUserHeaderKeys,
      oauth: secrets.oauth ?? {},
      toolsToExecute: row.toolsToExecute,
      toolsToAutoExecute: row.toolsToAutoExecute,
      toolPricing: row.toolPricing,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    };
  }
}
