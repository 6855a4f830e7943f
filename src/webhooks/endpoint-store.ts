import { eq, inArray, sql } from "drizzle-orm";
import type { Write } from "../../actors/runtime/snapshot-store";
import type { SecretBox } from "../crypto/secret-box";
import type { Database } from "../db/client";
import { LocalWrites } from "../db/table-changes";
import { DEFAULT_WEBHOOK_EVENTS, type EndpointState, type WebhookEndpointRow, type WebhookEvent, webhookEndpoints } from "../db/schema";
import { advancedUpdatedAt } from "../db/table-changes";
import { badRequest, conflict, notFound } from "../http/errors";
import { redactSecret } from "../provider-registry/key-secrets";
import { resolveTunables, type Tunables, validateHeaders, validateUrl } from "./endpoint-rules";
import type { HostResolver } from "./host-resolver";
import type { WebhookEndpointCreate, WebhookEndpointUpdate } from "./schemas";
import { generateSigningSecret } from "./signing";

export type WebhookEndpoint = WebhookEndpointRow;

const tunablesOf = (row: WebhookEndpoint): Tunables => ({
  max_retries: row.maxRetries,
  retry_backoff_initial_seconds: row.retryBackoffInitialSeconds,
  retry_backoff_max_seconds: row.retryBackoffMaxSeconds,
  attempt_timeout_seconds: row.attemptTimeoutSeconds,
  max_response_payload_kbs: row.maxResponsePayloadKbs,
  max_concurrent_deliveries: row.maxConcurrentDeliveries,
  max_deliveries_per_second: row.maxDeliveriesPerSecond,
  failing_after_failed_attempts: row.failingAfterFailedAttempts,
  disable_after_failing_seconds: row.disableAfterFailingSeconds,
  disable_after_failed_messages: row.disableAfterFailedMessages,
});

const tunableColumns = (tunables: Tunables) => ({
  maxRetries: tunables.max_retries,
  retryBackoffInitialSeconds: tunables.retry_backoff_initial_seconds,
  retryBackoffMaxSeconds: tunables.retry_backoff_max_seconds,
  attemptTimeoutSeconds: tunables.attempt_timeout_seconds,
  maxResponsePayloadKbs: tunables.max_response_payload_kbs,
  maxConcurrentDeliveries: tunables.max_concurrent_deliveries,
  maxDeliveriesPerSecond: tunables.max_deliveries_per_second,
  failingAfterFailedAttempts: tunables.failing_after_failed_attempts,
  disableAfterFailingSeconds: tunables.disable_after_failing_seconds,
  disableAfterFailedMessages: tunables.disable_after_failed_messages,
});

/** The endpoint actor's state as the endpoint row mirrors it. */
export interface EndpointStateColumns {
  state: EndpointState;
  stateSince: Date;
  failingSince: Date | null;
  disabledReason: string | null;
}

interface Settings {
  name: string;
  url: string;
  events: WebhookEvent[];
  headers: Record<string, string>;
  include_response: boolean;
  allow_private_network: boolean;
  disabled: boolean;
  tunables: Tunables;
}

/**
 * Webhook endpoints (spec 2.6): persisted in libSQL, read from memory by the delivery path.
 * Header values and the signing secret are sealed at rest; the secret leaves this store only
 * at creation and rotation. The outcome counters (consecutive_failures, last_success_at,
 * last_failure_at) are counted in the database, where every node's deliveries add up: the
 * copies in memory are not kept current, and `withOutcomes` reads them for a view.
 */
export class WebhookEndpointStore {
  private readonly byId = new Map<string, WebhookEndpoint>();
  private readonly localWrites = new LocalWrites();

  constructor(
    private readonly db: Database,
    private readonly secrets: SecretBox,
    private readonly resolveHost: HostResolver,
  ) {}

  /**
   * Reads the endpoints again (another node may have written them) and returns the ids that
   * are gone. An endpoint whose updated_at did not move keeps this node's copy as it is.
   */
  async load(): Promise<string[]> {
    const rows = await this.localWrites.readUnraced(() => this.db.select().from(webhookEndpoints));
    const gone = new Set(this.byId.keys());
    for (const row of rows) {
      gone.delete(row.id);
      const current = this.byId.get(row.id);
      if (current?.updatedAt.getTime() === row.updatedAt.getTime()) continue;
      this.byId.set(row.id, row);
    }
    for (const id of gone) this.byId.delete(id);
    return [...gone];
  }

  list(): WebhookEndpoint[] {
    return [...this.byId.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.name.localeCompare(b.name));
  }

  get(id: string): WebhookEndpoint | undefined {
    return this.byId.get(id);
  }

  require(id: string): WebhookEndpoint {
    const endpoint = this.byId.get(id);
    if (!endpoint) throw notFound(`webhook endpoint '${id}' does not exist`, "caller_webhook_not_found");
    return endpoint;
  }

  findByName(name: string): WebhookEndpoint | undefined {
    return this.list().find((endpoint) => endpoint.name === name);
  }

  /** Enabled endpoints that subscribed to the event. */
  subscribers(event: WebhookEvent): WebhookEndpoint[] {
    return this.list().filter((endpoint) => !endpoint.disabled && endpoint.events.includes(event));
  }

  headersOf(endpoint: WebhookEndpoint): Record<string, string> {
    return JSON.parse(this.secrets.open(endpoint.sealedHeaders)) as Record<string, string>;
  }

  secretOf(endpoint: WebhookEndpoint): string {
    return this.secrets.open(endpoint.sealedSecret);
  }

  /** Header values as responses show them: env references visible, anything else redacted. */
  redactedHeadersOf(endpoint: WebhookEndpoint): Record<string, string> {
    return Object.fromEntries(Object.entries(this.headersOf(endpoint)).map(([name, value]) => [name, redactSecret(value)]));
  }

  async create(input: WebhookEndpointCreate): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const settings = await this.settingsFrom(input);
    this.assertNameFree(settings.name);
    const secret = generateSigningSecret();
    const now = new Date();
    const row: WebhookEndpoint = {
      id: crypto.randomUUID(),
      ...this.columnsOf(settings),
      sealedSecret: this.secrets.seal(secret),
      consecutiveFailures: 0,
      lastSuccessAt: null,
      lastFailureAt: null,
      state: settings.disabled ? "disabled" : "active",
      stateSince: now,
      failingSince: null,
      disabledReason: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.db.insert(webhookEndpoints).values(row);
    this.byId.set(row.id, row);
    this.localWrites.wrote();
    return { endpoint: row, secret };
  }

  async update(id: string, input: WebhookEndpointUpdate): Promise<WebhookEndpoint> {
    const current = this.require(id);
    if (input.secret !== undefined) {
      throw badRequest("the signing secret cannot be changed here; use POST /api/webhooks/{id}/rotate-secret", "secret");
    }
    const settings = await this.settingsFrom(input, current);
    if (settings.name !== current.name) this.assertNameFree(settings.name);
    return this.write(id, { ...this.columnsOf(settings), updatedAt: new Date() });
  }

  async rotateSecret(id: string): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    this.require(id);
    const secret = generateSigningSecret();
    const endpoint = await this.write(id, { sealedSecret: this.secrets.seal(secret), updatedAt: new Date() });
    return { endpoint, secret };
  }

  async remove(id: string): Promise<void> {
    this.require(id);
    await this.db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id));
    this.byId.delete(id);
    this.localWrites.wrote();
  }

  /** consecutive_failures, last_success_at and last_failure_at follow each attempt, on whichever node; the caller commits the write. */
  recordAttempt(id: string, delivered: boolean, at: Date): Write | undefined {
    if (!this.byId.has(id)) return undefined;
    const { consecutiveFailures, lastSuccessAt, lastFailureAt } = webhookEndpoints;
    const change = delivered ? { consecutiveFailures: 0, lastSuccessAt: sql`max(coalesce(${lastSuccessAt}, 0), ${at.getTime()})` } : { consecutiveFailures: sql`${consecutiveFailures} + 1`, lastFailureAt: sql`max(coalesce(${lastFailureAt}, 0), ${at.getTime()})` };
    return this.db.update(webhookEndpoints).set(change).where(eq(webhookEndpoints.id, id));
  }

  /** This node's copy takes the endpoint actor's state once it is committed; other nodes see the moved updated_at and reload it. */
  applyState(id: string, columns: EndpointStateColumns): void {
    const current = this.byId.get(id);
    if (current) this.byId.set(id, { ...current, ...columns });
  }

  /** The endpoint actor's state into its row, for the caller to commit with the actor's snapshot. */
  mirrorState(id: string, columns: EndpointStateColumns, at: Date): Write {
    return this.db
      .update(webhookEndpoints)
      .set({ ...columns, updatedAt: advancedUpdatedAt(webhookEndpoints.updatedAt, at.getTime()) as unknown as Date })
      .where(eq(webhookEndpoints.id, id));
  }

  /** The consecutive failed attempts as the database counts them now (every node's attempts). */
  async consecutiveFailures(id: string): Promise<number> {
    const row = await this.db.select({ failures: webhookEndpoints.consecutiveFailures }).from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).get();
    return row?.failures ?? 0;
  }

  /** The endpoints with their outcome counters as the database holds them now. */
  async withOutcomes(endpoints: readonly WebhookEndpoint[]): Promise<WebhookEndpoint[]> {
    if (endpoints.length === 0) return [];
    const { id, consecutiveFailures, lastSuccessAt, lastFailureAt } = webhookEndpoints;
    const rows = await this.db.select({ id, consecutiveFailures, lastSuccessAt, lastFailureAt }).from(webhookEndpoints).where(inArray(id, endpoints.map((endpoint) => endpoint.id)));
    const outcomes = new Map(rows.map(({ id, ...outcome }) => [id, outcome]));
    return endpoints.map((endpoint) => ({ ...endpoint, ...outcomes.get(endpoint.id) }));
  }

  /** Writes configuration; the row written, outcome counters included, becomes this node's copy. */
  private async write(id: string, change: Partial<WebhookEndpoint>): Promise<WebhookEndpoint> {
    const [row] = await this.db.update(webhookEndpoints).set(change).where(eq(webhookEndpoints.id, id)).returning();
    if (!row || !this.byId.has(id)) throw notFound(`webhook endpoint '${id}' does not exist`, "caller_webhook_not_found");
    this.byId.set(id, row);
    this.localWrites.wrote();
    return row;
  }

  private assertNameFree(name: string): void {
    if (this.findByName(name)) throw conflict(`a webhook endpoint named '${name}' already exists`, "name");
  }

  private columnsOf(settings: Settings) {
    return {
      name: settings.name,
      url: settings.url,
      events: settings.events,
      sealedHeaders: this.secrets.seal(JSON.stringify(settings.headers)),
      includeResponse: settings.include_response,
      allowPrivateNetwork: settings.allow_private_network,
      disabled: settings.disabled,
      ...tunableColumns(settings.tunables),
      // Keyed: the settings hold header values (credentials of the receiver).
      configHash: this.secrets.fingerprint(settings),
    };
  }

  /** The whole configuration after a write: given fields, else the current ones, else defaults. */
  private async settingsFrom(input: WebhookEndpointUpdate, current?: WebhookEndpoint): Promise<Settings> {
    const allowPrivate = input.allow_private_network ?? current?.allowPrivateNetwork ?? false;
    const headers = input.headers ? this.keepRedactedHeaders(input.headers, current) : current ? this.headersOf(current) : {};
    validateHeaders(headers);
    // The URL is checked when it or its network permission changes, so disabling a now-refused endpoint still works.
    const recheck = !current || input.url !== undefined || allowPrivate !== current.allowPrivateNetwork;
    return {
      name: (input.name ?? current?.name)!,
      url: recheck ? await validateUrl((input.url ?? current?.url)!, allowPrivate, this.resolveHost) : current.url,
      events: input.events ?? current?.events ?? [...DEFAULT_WEBHOOK_EVENTS],
      headers,
      include_response: input.include_response ?? current?.includeResponse ?? false,
      allow_private_network: allowPrivate,
      disabled: input.disabled ?? current?.disabled ?? false,
      tunables: resolveTunables(input, current && tunablesOf(current)),
    };
  }

  /** A client that read the endpoint and writes it back sends redacted values: those mean "unchanged". */
  private keepRedactedHeaders(incoming: Record<string, string>, current?: WebhookEndpoint): Record<string, string> {
    if (!current) return incoming;
    const stored = this.headersOf(current);
    return Object.fromEntries(
      Object.entries(incoming).map(([name, value]) => {
        const previous = stored[name];
        return [name, previous !== undefined && value === redactSecret(previous) ? previous : value];
      }),
    );
  }
}

