import { t } from "elysia";

/**
 * A list route's `limit` and `offset` query parameters: whole numbers the database takes. A
 * fraction or an integer past 2^53 reached SQLite's LIMIT or OFFSET as a real, which it
 * refuses, and the list answered 500.
 */
const wholeNumber = (minimum: number, maximum: number, defaultValue?: number) =>
  t.Optional(t.Numeric({ minimum, maximum, multipleOf: 1, ...(defaultValue === undefined ? {} : { default: defaultValue }) }));

/** How many items a page holds: 1 to `maximum`. */
export const PageLimit = (maximum = Number.MAX_SAFE_INTEGER, defaultValue?: number) => wholeNumber(1, maximum, defaultValue);

/** How many items the page skips. */
export const PageOffset = (defaultValue?: number) => wholeNumber(0, Number.MAX_SAFE_INTEGER, defaultValue);
