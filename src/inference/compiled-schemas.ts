import Ajv, { type ValidateFunction } from "ajv";

/**
 * JSON schemas that requests carry (`response_format`, `text.format`), compiled once per distinct
 * schema and remembered for a bounded number of them: clients choose them.
 */

export const ajv = new Ajv({ allErrors: false, strict: false });
const compiled = new Map<string, ValidateFunction>();
const MAX_REMEMBERED_SCHEMAS = 256;

/** The validator of a request's schema; undefined for one that does not compile. */
export function compiledSchema(schema: unknown): ValidateFunction | undefined {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (validate) return validate;
  try {
    validate = ajv.compile(schema as object);
  } catch {
    return undefined;
  }
  if (compiled.size >= MAX_REMEMBERED_SCHEMAS) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, validate);
  return validate;
}
