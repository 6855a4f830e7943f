import type { ValidateFunction } from "ajv";
import { ajv, compiledSchema } from "../../inference/compiled-schemas";
import { badRequest } from "../../http/errors";
import type { VerdictFn } from "../checks";

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
    const validate = own ?? (requested === undefined ? undefined : compiledSchema(requested));
    return validate ? !validate(reply.value) : false;
  };
}
