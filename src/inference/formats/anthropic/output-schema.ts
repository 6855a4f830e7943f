/**
 * A client's JSON schema for structured output as Anthropic's `output_config.format` takes it.
 * Anthropic compiles the schema into a grammar and refuses what it cannot compile: numeric bounds
 * (`minimum`, `maximum`, `multipleOf`...), string lengths and patterns, array bounds other than
 * `minItems` 0 or 1, string formats outside its list, `$schema`, objects open to more properties.
 * Those keywords are written into the node's description instead (the model still reads them),
 * `oneOf` becomes `anyOf`, every object is closed; translate.ts checks the reply against the
 * client's own schema where the client asked for strict output.
 */

type Schema = Record<string, unknown>;

const STRING_FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"]);

/** Keywords that name no constraint and are dropped without a word. */
const DROPPED = new Set(["$schema", "$id", "$comment"]);

const isSchema = (value: unknown): value is Schema => typeof value === "object" && value !== null && !Array.isArray(value);

const eachSchema = (value: unknown, adapt: (schema: Schema) => Schema) => (isSchema(value) ? adapt(value) : value);

const mapValues = (value: unknown, adapt: (schema: Schema) => Schema) =>
  isSchema(value) ? Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, eachSchema(schema, adapt)])) : value;

/** What a keyword becomes on Anthropic: kept (possibly rewritten), or undefined to move it into the description. */
function kept(key: string, value: unknown, node: Schema): [string, unknown] | undefined {
  switch (key) {
    case "type":
    case "enum":
    case "const":
    case "required":
    case "title":
    case "$ref":
      return [key, value];
    case "properties":
    case "$defs":
    case "definitions":
      return [key, mapValues(value, anthropicSchema)];
    case "items":
      return [key, eachSchema(value, anthropicSchema)];
    case "anyOf":
    case "oneOf":
    case "allOf":
      return Array.isArray(value) ? [key === "oneOf" ? "anyOf" : key, value.map((schema) => eachSchema(schema, anthropicSchema))] : undefined;
    case "additionalProperties":
      return value === false ? [key, false] : undefined;
    case "minItems":
      return value === 0 || value === 1 ? [key, value] : undefined;
    case "format":
      return node.type === "string" && typeof value === "string" && STRING_FORMATS.has(value) ? [key, value] : undefined;
    default:
      return undefined;
  }
}

/** The schema as Anthropic accepts it (see above); a schema it already accepts comes back equal. */
export function anthropicSchema(schema: Schema): Schema {
  const adapted: Schema = {};
  const moved: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (key === "description" || DROPPED.has(key)) continue;
    const entry = kept(key, value, schema);
    if (entry) adapted[entry[0]] = entry[1];
    else if (!(key === "additionalProperties" && value === true)) moved.push(`${key}: ${JSON.stringify(value)}`);
  }
  if (schema.type === "object" || isSchema(schema.properties)) adapted.additionalProperties = false;
  const description = [typeof schema.description === "string" ? schema.description : "", moved.length > 0 ? `{${moved.join(", ")}}` : ""].filter(Boolean).join("\n\n");
  return description ? { ...adapted, description } : adapted;
}
