import { asc, eq } from "drizzle-orm";
import type { LogSinkConfig } from "../config/sections/log-sinks";
import type { SecretBox } from "../crypto/secret-box";
import type { Database } from "../db/client";
import { advancedUpdatedAt } from "../db/table-changes";
import { type LogSinkRow, logSinks } from "../db/schema";
import { badRequest, conflict, notFound } from "../http/errors";
import type { LogSinkCreate, LogSinkUpdate } from "./bodies";

/** A sink of the API as delivery runs it: the configuration's settings, its secrets opened. */
export type StoredSink = LogSinkConfig & { allow_private_network?: boolean };

/** What is sealed of an HTTP sink: its signing secret and its header values. */
interface Sealed {
  secret: string;
  headers?: Record<string, string>;
}

/** Log sinks added through the API, in `log_sinks`; their secret and header values sealed. Read at each change, never on the request path. */
export class LogSinkStore {
  constructor(
    private readonly db: Database,
    private readonly secrets: SecretBox,
  ) {}

  async list(): Promise<StoredSink[]> {
    return (await this.db.select().from(logSinks).orderBy(asc(logSinks.createdAt))).map((row) => this.opened(row));
  }

  async require(name: string): Promise<StoredSink> {
    const row = await this.db.select().from(logSinks).where(eq(logSinks.name, name)).get();
    if (!row) throw notFound(`log sink '${name}' not found`);
    return this.opened(row);
  }

  async create(sink: StoredSink, now: Date): Promise<void> {
    const inserted = await this.db
      .insert(logSinks)
      .values({ name: sink.name, type: sink.type, ...this.sealed(sink), createdAt: now, updatedAt: now })
      .onConflictDoNothing()
      .returning({ name: logSinks.name });
    if (inserted.length === 0) throw conflict(`a log sink named '${sink.name}' already exists`, "name");
  }

  /** The sink `update` makes of the stored one: settings replaced, an HTTP sink's secret and headers not given kept. */
  async merged(name: string, update: LogSinkUpdate): Promise<StoredSink> {
    const current = await this.require(name);
    const kept = current.type === "http" && update.type === "http" ? { secret: update.secret ?? current.secret, headers: update.headers ?? current.headers } : {};
    return { ...update, ...kept, name } as StoredSink;
  }

  async replace(sink: StoredSink, now: Date): Promise<void> {
    await this.db
      .update(logSinks)
      .set({ type: sink.type, ...this.sealed(sink), updatedAt: advancedUpdatedAt(logSinks.updatedAt, now.getTime()) })
      .where(eq(logSinks.name, sink.name));
  }

  async remove(name: string): Promise<void> {
    await this.require(name);
    await this.db.delete(logSinks).where(eq(logSinks.name, name));
  }

  private sealed(sink: LogSinkCreate | StoredSink): Pick<LogSinkRow, "settings" | "sealedSecrets"> {
    if (sink.type === "file") return { settings: { ...sink }, sealedSecrets: null };
    const { secret, headers, ...settings } = sink;
    if (secret === undefined) throw badRequest("secret is required for an http sink", "secret");
    const sealed: Sealed = { secret, headers };
    return { settings, sealedSecrets: this.secrets.seal(JSON.stringify(sealed)) };
  }

  private opened(row: LogSinkRow): StoredSink {
    const sealed = row.sealedSecrets === null ? {} : (JSON.parse(this.secrets.open(row.sealedSecrets)) as Sealed);
    return { ...row.settings, ...sealed, name: row.name, type: row.type } as StoredSink;
  }
}
