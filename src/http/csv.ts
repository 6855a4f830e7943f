/** A character a spreadsheet takes as the start of a formula when a cell begins with it. */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A field RFC 4180 wants quoted: one holding the separator, a quote or a line break. */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV field (RFC 4180): null and undefined as an empty field, objects as their JSON, text
 * quoted when it holds a comma, a quote or a line break (quotes doubled). Text a spreadsheet
 * would run as a formula (`=`, `+`, `-`, `@` first) is prefixed with `'` (OWASP's advice for
 * CSV injection): an exported error message or metadata value never runs in the reader's sheet.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  const raw = typeof value === "string" ? value : JSON.stringify(value);
  const text = typeof value === "string" && FORMULA_START.test(raw) ? `'${raw}` : raw;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV record, CRLF-terminated as RFC 4180 has it. */
export const csvRecord = (values: readonly unknown[]): string => `${values.map(csvField).join(",")}\r\n`;
