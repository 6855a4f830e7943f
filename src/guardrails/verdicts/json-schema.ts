import Ajv, { type ValidateFunction } from "ajv";
import { badRequest } from "../../http/errors";
import type { VerdictFn } from "../checks";

const ajv = new Ajv({ allErrors: false, strict: false });
/** Schemas from `response_format`, compiled once per distinct schema. */
const compiledFromRequests = new Map<string, ValidateFunction>();
const MAX_REMEMBERED_SCHEMAS = 256;

function compileFromRequest(schema: unknown): ValidateFunction | undefined {
  const key = JSON.stringify(schema);
  let validate = compiledFromRequests.get(key);
  if (validate) return validate;
  try {
    validate = ajv.compile(schema as object);
  } catch {
    return undefined;
  }
  if (compiledFromRequests.size >= MAX_REMEMBERED_SCHEMAS) compiledFromRequests.delete(compiledFromRequests.keys().next().value!);
  compiledFromRequests.set(key, validate);
  return validate;
}

/** The schema of OpenAI's `response_format: {type: "json_schema", json_schema: {schema}}`. */
function requestedSchema(body: Record<string, unknown>): unknown {
  const format = body.response_format as { json_schema?: { schema?: unknown } } | undefined;
  return format?.json_schema?.schema;
}

function parsed(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** The reply must be JSON meeting the check's schema, else the request's `response_format` schema, else any JSON. */
export function jsonSchemaCheck(schema: Record<string, unknown> | undefined, param: string): VerdictFn {
  let own: ValidateFunction | undefined;
  if (schema) {
    try {
      own = ajv.compile(schema);
    } catch (error) {
      throw badRequest(`${param} is not a usable JSON schema: ${(error as Error).message}`, param);
    }
  }
  return ({ text, body }) => {
    const reply = parsed(text.trim());
    if (!reply.ok) return true;
    const requested = requestedSchema(body);
    const validate = own ?? (requested === undefined ? undefined : compileFromRequest(requested));
    return validate ? !validate(reply.value) : false;
  };
}
