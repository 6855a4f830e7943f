import { expect, test } from "bun:test";
import { LibsqlError } from "@libsql/core/api";
import { DrizzleQueryError } from "drizzle-orm";
import { duplicatedColumns } from "../../src/db/duplicate-value";
import { databaseUnavailable } from "../../src/db/unavailable";

const refused = (path: string) => Object.assign(new TypeError("ECONNREFUSED: Unable to connect"), { code: "ECONNREFUSED", path });

test.each([
  ["a query to a libSQL server nobody answers", new DrizzleQueryError("select 1", [], refused("http://db:8080/v2/pipeline"))],
  ["a batch to it, unwrapped", refused("http://db:8080/v2/pipeline")],
  ["an embedded file locked past the busy timeout", new LibsqlError("database is locked", "SQLITE_BUSY")],
  ["a full disk", new DrizzleQueryError("insert ...", [], new LibsqlError("database or disk is full", "SQLITE_FULL"))],
])("the database is unavailable (503): %s", (_, error) => {
  expect(databaseUnavailable(error)).toBe(true);
});

test.each([
  ["a constraint the write breaks", new DrizzleQueryError("insert ...", [], new LibsqlError("UNIQUE constraint failed", "SQLITE_CONSTRAINT_UNIQUE"))],
  ["a fetch elsewhere that nobody answers", refused("http://upstream:9/v1/chat/completions")],
  ["any other error", new Error("boom")],
])("not a database outage (a 409 or a 500): %s", (_, error) => {
  expect(databaseUnavailable(error)).toBe(false);
});

test.each([
  ["one column, embedded", new DrizzleQueryError("insert ...", [], new LibsqlError("SQLITE_CONSTRAINT: UNIQUE constraint failed: governance_virtual_keys.name", "SQLITE_CONSTRAINT_UNIQUE")), ["name"]],
  ["two columns, from a libSQL server", new DrizzleQueryError("insert ...", [], new LibsqlError("SQLite error: UNIQUE constraint failed: mcp_tools.client_id, mcp_tools.name", "SQLITE_CONSTRAINT")), ["client_id", "name"]],
  ["another constraint", new DrizzleQueryError("insert ...", [], new LibsqlError("NOT NULL constraint failed: request_logs.id", "SQLITE_CONSTRAINT_NOTNULL")), undefined],
  ["the words outside a database error", new Error("UNIQUE constraint failed: t.name"), undefined],
])("a duplicate value (409) names its columns: %s", (_, error, columns) => {
  expect(duplicatedColumns(error)).toEqual(columns);
});
