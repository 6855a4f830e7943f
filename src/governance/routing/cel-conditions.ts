import type { Environment } from "@marcbachmann/cel-js";
import { badRequest } from "../../http/errors";

/** What a routing rule's CEL expression can read about a request. */
export interface RoutingFacts {
  /** The model as the client wrote it, without a provider prefix. */
  model: string;
  /** The provider the request resolved to; empty when the model named none that resolves. */
  provider: string;
  /** `chat.completion`, `embedding`, ... */
  request_type: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  metadata: Record<string, string>;
  virtual_key_id: string;
  virtual_key_name: string;
  team_id: string;
  team_name: string;
  customer_id: string;
  customer_name: string;
  /** Percent (0..100) of the fullest budget of the caller's virtual key, team and customer. */
  budget_used: number;
  /** Percent of the fullest token limit. */
  tokens_used: number;
  /** Percent of the fullest request limit. */
  requests_used: number;
  /** The request's complexity tier ("" for other requests than chat); classified only when an expression reads it. */
  complexity_tier: string;
  /** Its complexity score, 0 to 1. */
  complexity_score: number;
}

const VARIABLES: Record<keyof RoutingFacts, string> = {
  model: "string",
  provider: "string",
  request_type: "string",
  headers: "map<string, string>",
  metadata: "map<string, string>",
  virtual_key_id: "string",
  virtual_key_name: "string",
  team_id: "string",
  team_name: "string",
  customer_id: "string",
  customer_name: "string",
  budget_used: "double",
  tokens_used: "double",
  requests_used: "double",
  complexity_tier: "string",
  complexity_score: "double",
};

let environment: Environment | undefined;

export type Condition = (facts: RoutingFacts) => boolean;

/**
 * Loads CEL's compiler once some expression needs it, before compileCondition runs: a gateway
 * without routing rules never holds it in memory.
 */
export async function prepareConditions(expressions: readonly string[]): Promise<void> {
  if (environment || expressions.every((expression) => !expression.trim())) return;
  const { Environment } = await import("@marcbachmann/cel-js");
  environment ??= Object.entries(VARIABLES).reduce((env, [name, type]) => env.registerVariable(name, type), new Environment());
}

/**
 * Type-checks and compiles a rule's expression, or throws the 400 that names `param`. An empty
 * expression matches every request. At request time an expression that fails (a header the
 * request does not carry: `headers["x-tier"]`) does not match.
 */
export function compileCondition(expression: string, param: string): Condition {
  const source = expression.trim();
  if (!source) return () => true;
  if (!environment) throw new Error("prepareConditions must load CEL before an expression is compiled");
  const checked = environment.check(source);
  if (!checked.valid) {
    const reason = checked.error?.message.split("\n")[0] ?? "invalid expression";
    throw badRequest(`${param} is not a valid CEL expression: ${reason}`, param, "caller_invalid_cel_expression");
  }
  if (checked.type !== "bool" && checked.type !== "dyn") {
    throw badRequest(`${param} must be a boolean expression, not ${checked.type}`, param, "caller_invalid_cel_expression");
  }
  const program = environment.parse(source);
  return (facts) => {
    try {
      return program(facts) === true;
    } catch {
      return false;
    }
  };
}
