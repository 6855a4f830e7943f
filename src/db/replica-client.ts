import type { Client, InArgs, InStatement, ResultSet, Transaction, TransactionMode } from "@libsql/client";

type BatchStatement = InStatement | [string, InArgs?];

/** Statements that only read: answered by the local replica. */
const READ_ONLY = /^\s*(select|pragma|explain)\b/i;
const sqlOf = (statement: BatchStatement) => (Array.isArray(statement) ? statement[0] : typeof statement === "string" ? statement : statement.sql);
const readsOnly = (statement: BatchStatement) => READ_ONLY.test(sqlOf(statement));

/**
 * One client over an embedded replica: reads from the local file, writes (and transactions that
 * may write) to the primary, each write followed by a sync of the replica before it resolves, so a
 * caller reads what it wrote (read your writes). Both connections are asynchronous: the driver's
 * own replica connection blocks its thread for every round trip to the primary.
 */
export function replicaClient(local: Client, primary: Client, sync: () => Promise<void>): Client {
  const afterWrite = async <T>(write: Promise<T>): Promise<T> => {
    const result = await write;
    // The write stands; a primary gone since then is caught up with by the next timed sync.
    await sync().catch(() => undefined);
    return result;
  };
  const syncedOnCommit = (transaction: Transaction): Transaction =>
    new Proxy(transaction, {
      get(target, property, receiver) {
        if (property === "commit") return () => afterWrite(target.commit());
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return {
    execute(statement: InStatement | string, args?: InArgs): Promise<ResultSet> {
      const stmt: InStatement = typeof statement === "string" && args !== undefined ? { sql: statement, args } : statement;
      return readsOnly(stmt) ? local.execute(stmt) : afterWrite(primary.execute(stmt));
    },
    batch(statements: BatchStatement[], mode?: TransactionMode) {
      return mode === "read" || statements.every(readsOnly) ? local.batch(statements, mode) : afterWrite(primary.batch(statements, mode));
    },
    migrate: (statements) => afterWrite(primary.migrate(statements)),
    async transaction(mode?: TransactionMode) {
      return mode === "read" ? local.transaction(mode) : syncedOnCommit(await primary.transaction(mode));
    },
    executeMultiple: (sql) => afterWrite(primary.executeMultiple(sql)),
    async sync() {
      await sync();
      return undefined;
    },
    close() {
      local.close();
      primary.close();
    },
    reconnect() {
      local.reconnect();
      primary.reconnect();
    },
    get closed() {
      return local.closed;
    },
    protocol: local.protocol,
  } as Client;
}
