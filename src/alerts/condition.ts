import type { Environment } from "@marcbachmann/cel-js";
import { badRequest } from "../http/errors";
import { FIGURE_NAMES, type FigureName } from "./figures";

let environment: Environment | undefined;

/** CEL's compiler, loaded once the first rule needs it: a gateway without alert rules never holds it. */
async function celEnvironment(): Promise<Environment> {
  if (environment) return environment;
  const { Environment } = await import("@marcbachmann/cel-js");
  environment ??= FIGURE_NAMES.reduce((env, name) => env.registerVariable(name, "double"), new Environment());
  return environment;
}

export interface CompiledCondition {
  /** The figures the expression reads: only those are computed. */
  reads: ReadonlySet<FigureName>;
  holds(figures: Record<string, number>): boolean;
}

const compiled = new Map<string, CompiledCondition>();

/**
 * Type-checks a rule's condition over the figures, or throws the 400 naming `condition` (an
 * unknown figure is an unknown variable to CEL, and says so). Compiled once per expression.
 */
export async function compileCondition(expression: string): Promise<CompiledCondition> {
  const known = compiled.get(expression);
  if (known) return known;
  const env = await celEnvironment();
  const checked = env.check(expression);
  if (!checked.valid) {
    const reason = checked.error?.message.split("\n")[0] ?? "invalid expression";
    throw badRequest(`condition is not a valid CEL expression over the figures (${FIGURE_NAMES.join(", ")}): ${reason}`, "condition", "caller_invalid_cel_expression");
  }
  if (checked.type !== "bool") throw badRequest(`condition must be a boolean expression, not ${checked.type}`, "condition", "caller_invalid_cel_expression");
  const program = env.parse(expression);
  const reads = new Set(FIGURE_NAMES.filter((name) => new RegExp(`\\b${name}\\b`).test(expression)));
  const condition: CompiledCondition = { reads, holds: (figures) => program(figures) === true };
  compiled.set(expression, condition);
  return condition;
}
