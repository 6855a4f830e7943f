import type { InArgs } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import type { Database } from "../db/client";
import * as schema from "../db/schema";
import { nearestRankPercentiles } from "./percentiles";
import type { NumbersQuery, ReadDatabase } from "./worker-reader";

/** The log queries on the main connection's client: a libSQL server's, which does not block the event loop. */
export function clientReader(db: Database): ReadDatabase {
  return Object.assign(drizzle(db.$client, { schema }), {
    async percentilesOf(numbers: NumbersQuery, percentiles: readonly number[]) {
      const { sql, params } = numbers.toSQL();
      const { rows } = await db.$client.execute({ sql, args: params as InArgs });
      return nearestRankPercentiles(String(rows[0]![0]), percentiles);
    },
  });
}
