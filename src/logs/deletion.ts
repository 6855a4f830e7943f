import { getTableName } from "drizzle-orm";
import { requestLogs } from "../db/schema/logs";

const table = `"${getTableName(requestLogs)}"`;

/** Deletes the logs whose ids are in the JSON array bound to it: any number of ids in one statement. */
export const DELETE_BY_IDS = `DELETE FROM ${table} WHERE "${requestLogs.id.name}" IN (SELECT value FROM json_each(?))`;

/** Deletes at most `?2` of the oldest logs before `?1` (epoch ms), found through the time index. */
export const DELETE_OLDER_THAN = `DELETE FROM ${table} WHERE "${requestLogs.seq.name}" IN (
  SELECT "${requestLogs.seq.name}" FROM ${table} WHERE "${requestLogs.timestamp.name}" < ? ORDER BY "${requestLogs.timestamp.name}" LIMIT ?)`;
