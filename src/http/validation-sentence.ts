import { ValueErrorType } from "@sinclair/typebox/errors";
import { fieldFromPath } from "./field-path";

/** What a validator reports about one value: TypeBox's error, as Elysia passes it on. */
export interface SchemaViolation {
  type: number;
  schema: unknown;
  path: string;
}

type Schema = Record<string, unknown>;

const plural = (count: unknown, word: string) => `${String(count)} ${word}${count === 1 ? "" : "s"}`;

/** ` from 0 to 1`, ` of at least 1`...: the bounds a number schema sets. */
function range(schema: Schema): string {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
  if (minimum !== undefined && maximum !== undefined) return ` from ${String(minimum)} to ${String(maximum)}`;
  const bounds = [
    minimum !== undefined && `at least ${String(minimum)}`,
    exclusiveMinimum !== undefined && `greater than ${String(exclusiveMinimum)}`,
    maximum !== undefined && `at most ${String(maximum)}`,
    exclusiveMaximum !== undefined && `less than ${String(exclusiveMaximum)}`,
  ].filter(Boolean);
  return bounds.length > 0 ? ` of ${bounds.join(" and ")}` : "";
}

function lengths(schema: Schema, unit: string): string {
  const { minLength, maxLength, minItems, maxItems } = schema;
  const min = minLength ?? minItems;
  const max = maxLength ?? maxItems;
  if (min !== undefined && max !== undefined) return ` of ${String(min)} to ${plural(max, unit)}`;
  if (min !== undefined) return ` of at least ${plural(min, unit)}`;
  return max !== undefined ? ` of at most ${plural(max, unit)}` : "";
}

/** A schema as the noun a sentence names: `an integer of at least 1`, `one of user, assistant`. */
function describe(schema: Schema): string {
  const members = Array.isArray(schema.anyOf) ? (schema.anyOf as Schema[]) : undefined;
  if (members) {
    if (members.every((member) => "const" in member)) return `one of ${members.map((member) => String(member.const)).join(", ")}`;
    return [...new Set(members.map(describe))].join(" or ");
  }
  if ("const" in schema) return String(schema.const);
  switch (schema.type) {
    case "string":
      // Elysia's numbers accept their digits as a string too (query and path values).
      if (schema.format === "integer") return `an integer${range(schema)}`;
      if (schema.format === "numeric") return `a number${range(schema)}`;
      return `a string${lengths(schema, "character")}${schema.pattern ? ` matching ${String(schema.pattern)}` : ""}`;
    case "integer":
      return `an integer${range(schema)}`;
    case "number":
      return `a number${range(schema)}`;
    case "boolean":
      return "true or false";
    case "array":
      return `an array${lengths(schema, "item")}`;
    case "object":
      return "an object";
    case "null":
      return "null";
    default:
      return "a valid value";
  }
}

/** The violation as a sentence about the field: `must be one of user, assistant`, `is required`. */
export function violationSentence(violation: SchemaViolation): string {
  if (violation.type === ValueErrorType.ObjectRequiredProperty) return "is required";
  if (violation.type === ValueErrorType.ObjectAdditionalProperties) return "is not a field this request takes";
  return `must be ${describe(violation.schema as Schema)}`;
}

/** `messages[1].role must be one of user, assistant`; a value with no path is named `whole`. */
export function violationMessage(violation: SchemaViolation, whole = "body"): { field: string; message: string } {
  const field = fieldFromPath(violation.path);
  return { field, message: `${field || whole} ${violationSentence(violation)}` };
}
