import type { Environment } from "@marcbachmann/cel-js";
import { CONTENT_FIELDS, SUMMARY_FIELDS } from "../logs/export";

/** A row as a sink sends it: the fields GET /api/logs shows, content included when asked for. */
export type SinkRow = Record<string, unknown>;
export type RowFilter = (row: SinkRow) => boolean;

let environment: Environment | undefined;

/**
 * CEL over a row: every field is a variable, typed `dyn` (most may be null, and numbers come as
 * doubles, which CEL would not compare with an int literal). Loaded only when a sink has a filter.
 */
async function celEnvironment(): Promise<Environment> {
  if (environment) return environment;
  const { Environment } = await import("@marcbachmann/cel-js");
  environment = [...SUMMARY_FIELDS, ...CONTENT_FIELDS].reduce((env, name) => env.registerVariable(name, "dyn"), new Environment());
  return environment;
}

/**
 * The filter of `expression`, or why it is not one, as a phrase to follow its name (a syntax error, an unknown field, not
 * a boolean). A row the expression fails on at run time (a field that is null: `cost > 0.1`)
 * does not match.
 */
export async function compileRowFilter(expression: string | undefined): Promise<RowFilter | string> {
  const source = expression?.trim();
  if (!source) return () => true;
  const env = await celEnvironment();
  const checked = env.check(source);
  if (!checked.valid) return `is not a valid CEL expression: ${checked.error?.message.split("\n")[0] ?? "invalid"}`;
  if (checked.type !== "bool" && checked.type !== "dyn") return `must be a boolean expression, not ${checked.type}`;
  const program = env.parse(source);
  return (row) => {
    try {
      return program(row) === true;
    } catch {
      return false;
    }
  };
}
