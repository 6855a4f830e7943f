import { eq } from "drizzle-orm";
import type { EnvReader } from "../config/env-reference";
import type { SecretBox } from "../crypto/secret-box";
import type { Database } from "../db/client";
import { a2aAgents, type A2AAgentRow } from "../db/schema";
import { LocalWrites } from "../db/table-changes";
import { badRequest, conflict, notFound } from "../http/errors";
import type { OutboundPolicy } from "../outbound/host-check";
import { type OutboundReach, policyFor } from "../outbound/reach";
import { redactSecret } from "../provider-registry/key-secrets";
import { type AgentCardJson, fetchAgentCard } from "./agent-card";
import { type AgentCreateInput, type AgentUpdateInput, RESERVED_AGENT_NAMES } from "./schemas";

export interface RegisteredAgent {
  name: string;
  url: string;
  /** Its address was written by someone who may point the gateway at loopback and private addresses. */
  privateNetworkAllowed: boolean;
  description: string;
  enabled: boolean;
  /** As written: values may be `env.NAME` references. */
  headers: Record<string, string>;
  card: AgentCardJson | null;
  cardFetchedAt: Date | null;
  cardError: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Headers the gateway sets itself on every upstream call. */
const RESERVED_HEADERS = new Set(["a2a-version", "a2a-extensions", "accept", "content-type", "content-length", "host", "connection", "transfer-encoding"]);

/** A cached card older than this is refreshed in the background on the next call. */
const CARD_TTL_MS = 60 * 60 * 1000;
/** An agent without a card is asked again at most this often, so calls to a down agent fail fast. */
const CARD_RETRY_MS = 30 * 1000;

export type CardFetcher = (url: string, headers: Record<string, string>, policy: OutboundPolicy) => Promise<AgentCardJson>;

function checkUrl(url: string): void {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) throw badRequest("url must be an absolute http(s) URL", "url");
}

function checkHeaders(headers: Record<string, string>): void {
  const reserved = Object.keys(headers).find((name) => RESERVED_HEADERS.has(name.toLowerCase()));
  if (reserved) throw badRequest(`header '${reserved}' is set by the gateway and cannot be configured`, `headers.${reserved}`);
}

/** A client that read an agent and writes it back sends redacted values; those mean "unchanged". */
function keepRedactedHeaders(incoming: Record<string, string>, stored: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(incoming).map(([name, value]) => {
      const previous = stored[name];
      return [name, previous !== undefined && value !== "" && value === redactSecret(previous) ? previous : value];
    }),
  );
}

/**
 * The registered agents: persisted in libSQL, served to the protocol routes from memory.
 * Every write goes to the database first, then refreshes the in-memory copy.
 */
export class AgentRegistry {
  private readonly byName = new Map<string, RegisteredAgent>();
  private readonly refreshing = new Map<string, Promise<RegisteredAgent>>();
  private readonly lastCardAttempt = new Map<string, number>();
  private readonly localWrites = new LocalWrites();

  constructor(
    private readonly db: Database,
    private readonly secrets: SecretBox,
    private readonly readEnv: EnvReader,
    private readonly outbound: OutboundReach,
    private readonly fetchCard: CardFetcher = fetchAgentCard,
  ) {}

  /** Reads every agent again: at start, and whenever another node on the same database changed them. */
  async load(): Promise<void> {
    const rows = await this.localWrites.readUnraced(() => this.db.select().from(a2aAgents));
    this.byName.clear();
    for (const row of rows) this.byName.set(row.name, this.fromRow(row));
  }

  list(): RegisteredAgent[] {
    return [...this.byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  get(name: string): RegisteredAgent | undefined {
    return this.byName.get(name);
  }

  require(name: string): RegisteredAgent {
    const agent = this.byName.get(name);
    if (!agent) throw notFound(`agent '${name}' is not registered`, "caller_agent_not_found");
    return agent;
  }

  /** The addresses the agent's calls (its card, and the interfaces the card names) may reach. */
  policyOf(agent: Pick<RegisteredAgent, "privateNetworkAllowed">): OutboundPolicy {
    return policyFor(this.outbound, agent.privateNetworkAllowed);
  }

  async create(input: AgentCreateInput, privateNetworkAllowed: boolean): Promise<RegisteredAgent> {
    if (RESERVED_AGENT_NAMES.has(input.name)) throw badRequest(`'${input.name}' is reserved and cannot name an agent`, "name");
    if (this.byName.has(input.name)) throw conflict(`agent '${input.name}' already exists`, "name");
    const headers = input.headers ?? {};
    checkUrl(input.url);
    checkHeaders(headers);
    const now = new Date();
    const card = await this.tryFetchCard(input.name, { url: input.url, headers, privateNetworkAllowed });
    await this.db.insert(a2aAgents).values({
      name: input.name,
      url: input.url,
      privateNetworkAllowed,
      description: input.description ?? "",
      enabled: input.enabled ?? true,
      sealedHeaders: this.secrets.seal(JSON.stringify(headers)),
      ...card,
      createdAt: now,
      updatedAt: now,
    });
    return this.reload(input.name);
  }

  /** Replaces the agent's settings whole (its address with its writer's reach) and fetches its card again. */
  async update(name: string, input: AgentUpdateInput, privateNetworkAllowed: boolean): Promise<RegisteredAgent> {
    const current = this.require(name);
    if (input.name !== undefined && input.name !== name) throw badRequest("an agent cannot be renamed; the name in the body must match the path", "name");
    const headers = keepRedactedHeaders(input.headers ?? {}, current.headers);
    checkUrl(input.url);
    checkHeaders(headers);
    const card = await this.tryFetchCard(name, { url: input.url, headers, privateNetworkAllowed });
    await this.db
      .update(a2aAgents)
      .set({ url: input.url, privateNetworkAllowed, description: input.description ?? "", enabled: input.enabled ?? true, sealedHeaders: this.secrets.seal(JSON.stringify(headers)), ...card, updatedAt: new Date() })
      .where(eq(a2aAgents.name, name));
    return this.reload(name);
  }

  async remove(name: string): Promise<void> {
    this.require(name);
    await this.db.delete(a2aAgents).where(eq(a2aAgents.name, name));
    this.byName.delete(name);
    this.lastCardAttempt.delete(name);
    this.localWrites.wrote();
  }

  /** The headers to send upstream, `env.NAME` references resolved. */
  upstreamHeaders(agent: Pick<RegisteredAgent, "headers">): Record<string, string> {
    return Object.fromEntries(Object.entries(agent.headers).map(([name, value]) => [name, this.readEnv(value)]));
  }

  /**
   * The agent with a card to proxy by: fetched now when none is cached, refreshed in the
   * background when the cached one is older than an hour.
   */
  async withCard(agent: RegisteredAgent): Promise<RegisteredAgent> {
    if (!agent.card) return Date.now() - (this.lastCardAttempt.get(agent.name) ?? 0) < CARD_RETRY_MS ? agent : this.refreshCard(agent.name);
    if (Date.now() - (agent.cardFetchedAt?.getTime() ?? 0) > CARD_TTL_MS) void this.refreshCard(agent.name).catch(() => undefined);
    return agent;
  }

  /** One fetch at a time per agent; concurrent callers share it. */
  private refreshCard(name: string): Promise<RegisteredAgent> {
    const running = this.refreshing.get(name);
    if (running) return running;
    const refresh = (async () => {
      const agent = this.require(name);
      const card = await this.tryFetchCard(name, agent);
      // A failed refresh keeps the last good card.
      const changes = card.agentCard ? card : { cardError: card.cardError };
      await this.db.update(a2aAgents).set(changes).where(eq(a2aAgents.name, name));
      return this.reload(name);
    })().finally(() => this.refreshing.delete(name));
    this.refreshing.set(name, refresh);
    return refresh;
  }

  private async tryFetchCard(name: string, agent: Pick<RegisteredAgent, "url" | "headers" | "privateNetworkAllowed">) {
    this.lastCardAttempt.set(name, Date.now());
    try {
      return { agentCard: await this.fetchCard(agent.url, this.upstreamHeaders(agent), this.policyOf(agent)), cardFetchedAt: new Date(), cardError: null };
    } catch (error) {
      return { agentCard: null, cardFetchedAt: null, cardError: (error as Error).message };
    }
  }

  private async reload(name: string): Promise<RegisteredAgent> {
    const row = await this.db.select().from(a2aAgents).where(eq(a2aAgents.name, name)).get();
    if (!row) throw notFound(`agent '${name}' is not registered`, "caller_agent_not_found");
    const agent = this.fromRow(row);
    this.byName.set(name, agent);
    this.localWrites.wrote();
    return agent;
  }

  private fromRow(row: A2AAgentRow): RegisteredAgent {
    return {
      name: row.name,
      url: row.url,
      privateNetworkAllowed: row.privateNetworkAllowed,
      description: row.description,
      enabled: row.enabled,
      headers: JSON.parse(this.secrets.open(row.sealedHeaders)) as Record<string, string>,
      card: row.agentCard ?? null,
      cardFetchedAt: row.cardFetchedAt ?? null,
      cardError: row.cardError ?? null,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    };
  }
}
