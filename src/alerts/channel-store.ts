import { eq } from "drizzle-orm";
import type { SecretBox } from "../crypto/secret-box";
import type { Database } from "../db/client";
import { duplicatedColumns } from "../db/duplicate-value";
import { type AlertChannelRow, type AlertChannelType, alertChannels, alertRules } from "../db/schema";
import { badRequest, conflict, notFound } from "../http/errors";
import type { ChannelCreate, ChannelUpdate } from "./schemas";

/** A channel as the senders use it: its settings with its secret opened. */
export interface AlertChannel {
  id: string;
  name: string;
  type: AlertChannelType;
  settings: ChannelSettings;
  /** The webhook URL (slack, teams), the routing key (pagerduty) or the SMTP password (email). */
  secret: string | undefined;
  createdAt: Date;
  updatedAt: Date;
}

/** What may be shown of a channel. */
export interface ChannelSettings {
  /** The webhook URL's host (slack, teams). */
  host?: string;
  events_url?: string;
  smtp?: { host: string; port: number; secure?: boolean; username?: string; from: string; to: string[] };
  endpoint_id?: string;
  allow_private_network: boolean;
}

/** Which field carries the channel's secret, by type; webhook channels have none. */
const SECRET_FIELD: Record<AlertChannelType, "webhook_url" | "routing_key" | undefined> = {
  slack: "webhook_url",
  teams: "webhook_url",
  pagerduty: "routing_key",
  email: undefined,
  webhook: undefined,
};

type ChannelFields = ChannelCreate;

function required<T>(value: T | undefined, field: string, type: string): T {
  if (value === undefined || value === "") throw badRequest(`${field} is required for a ${type} channel`, field);
  return value;
}

/** The settings and secret of a channel's fields; a 400 naming the field a type needs and lacks. */
function splitFields(fields: ChannelFields): { settings: ChannelSettings; secret: string | undefined } {
  const allow = fields.allow_private_network === true;
  const secretField = SECRET_FIELD[fields.type];
  const secret = secretField ? required(fields[secretField], secretField, fields.type) : undefined;
  switch (fields.type) {
    case "slack":
    case "teams":
      return { settings: { host: new URL(secret!).host, allow_private_network: allow }, secret };
    case "pagerduty":
      return { settings: { events_url: fields.events_url, allow_private_network: allow }, secret };
    case "email": {
      const { password, ...smtp } = required(fields.smtp, "smtp", "email");
      return { settings: { smtp, allow_private_network: allow }, secret: password };
    }
    case "webhook":
      return { settings: { endpoint_id: required(fields.endpoint_id, "endpoint_id", "webhook"), allow_private_network: allow }, secret: undefined };
  }
}

/** Alert channels in the database, their secrets sealed; read at each notification (never on the request path). */
export class AlertChannelStore {
  constructor(
    private readonly db: Database,
    private readonly secrets: SecretBox,
  ) {}

  async list(): Promise<AlertChannel[]> {
    return (await this.db.select().from(alertChannels).orderBy(alertChannels.createdAt)).map((row) => this.opened(row));
  }

  async get(id: string): Promise<AlertChannel | undefined> {
    const row = await this.db.select().from(alertChannels).where(eq(alertChannels.id, id)).get();
    return row && this.opened(row);
  }

  async require(id: string): Promise<AlertChannel> {
    const channel = await this.get(id);
    if (!channel) throw notFound(`alert channel '${id}' not found`);
    return channel;
  }

  async create(fields: ChannelFields): Promise<AlertChannel> {
    const { settings, secret } = splitFields(fields);
    const now = new Date();
    const row = { id: crypto.randomUUID(), name: fields.name, type: fields.type, settings: { ...settings }, sealedSecret: secret === undefined ? null : this.secrets.seal(secret), createdAt: now, updatedAt: now };
    await this.db.insert(alertChannels).values(row).catch((error) => this.rethrow(error, fields.name));
    return this.opened(row);
  }

  /** Fields not given keep their value; a secret not given keeps the sealed one. */
  async update(id: string, update: ChannelUpdate): Promise<AlertChannel> {
    const current = await this.require(id);
    const fields: ChannelFields = {
      type: current.type,
      name: update.name ?? current.name,
      webhook_url: update.webhook_url ?? (SECRET_FIELD[current.type] === "webhook_url" ? current.secret : undefined),
      routing_key: update.routing_key ?? (current.type === "pagerduty" ? current.secret : undefined),
      events_url: update.events_url ?? current.settings.events_url,
      smtp: update.smtp ?? (current.settings.smtp && { ...current.settings.smtp, password: current.secret }),
      endpoint_id: update.endpoint_id ?? current.settings.endpoint_id,
      allow_private_network: update.allow_private_network ?? current.settings.allow_private_network,
    };
    if (update.smtp && update.smtp.password === undefined && current.secret !== undefined) fields.smtp = { ...update.smtp, password: current.secret };
    const { settings, secret } = splitFields(fields);
    const row = { name: fields.name, settings: { ...settings }, sealedSecret: secret === undefined ? null : this.secrets.seal(secret), updatedAt: new Date() };
    await this.db.update(alertChannels).set(row).where(eq(alertChannels.id, id)).catch((error) => this.rethrow(error, fields.name));
    return { ...current, name: row.name, settings, secret, updatedAt: row.updatedAt };
  }

  /** A channel a rule still notifies cannot go: 409 naming the rules. */
  async remove(id: string): Promise<void> {
    await this.require(id);
    const users = (await this.db.select({ name: alertRules.name, channelIds: alertRules.channelIds }).from(alertRules)).filter((rule) => rule.channelIds.includes(id));
    if (users.length > 0) throw conflict(`alert channel '${id}' is used by the rules ${users.map((rule) => `'${rule.name}'`).join(", ")}`);
    await this.db.delete(alertChannels).where(eq(alertChannels.id, id));
  }

  private opened(row: AlertChannelRow): AlertChannel {
    return {
      id: row.id,
      name: row.name,
      type: row.type,
      settings: row.settings as unknown as ChannelSettings,
      secret: row.sealedSecret === null ? undefined : this.secrets.open(row.sealedSecret),
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    };
  }

  private rethrow(error: unknown, name: string): never {
    if (duplicatedColumns(error)) throw conflict(`an alert channel named '${name}' already exists`, "name");
    throw error;
  }
}
