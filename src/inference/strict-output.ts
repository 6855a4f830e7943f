import { GatewayError } from "../http/errors";
import type { ChatResponse } from "./canonical";
import { compiledSchema } from "./compiled-schemas";
import type { WireFormat } from "../upstream/operations";

/**
 * Structured output the client asked for strictly, checked by the gateway where the provider was
 * given a looser schema than the client's (Anthropic's, see formats/anthropic/output-schema.ts):
 * a reply that does not follow the client's own schema is the provider's failure, not the
 * client's surprise.
 */

type Body = Record<string, unknown>;
type Format = { type?: unknown; strict?: unknown; schema?: unknown; json_schema?: { strict?: unknown; schema?: unknown } };

/** The formats whose providers get a looser schema than the client's. */
const LOOSENED: ReadonlySet<WireFormat> = new Set(["anthropic"]);

/** The schema of an OpenAI-format body's strict structured output (chat's `response_format`, the Responses API's `text.format`). */
function strictSchemaOf(clientBody: Body): unknown {
  const chat = (clientBody.response_format as Format | undefined)?.json_schema;
  if (chat?.strict === true) return chat.schema;
  const responses = (clientBody.text as { format?: Format } | undefined)?.format;
  return responses?.type === "json_schema" && responses.strict === true ? responses.schema : undefined;
}

function parsed(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/** Throws when a finished reply of a `from`-format provider breaks the schema its client asked for strictly. */
export function assertStrictReply(response: ChatResponse, clientBody: Body, from: WireFormat): void {
  if (!LOOSENED.has(from)) return;
  const schema = strictSchemaOf(clientBody);
  const choice = response.choices[0];
  const text = choice?.message.content;
  if (schema === undefined || choice?.finish_reason !== "stop" || typeof text !== "string") return;
  const validate = compiledSchema(schema);
  const reply = parsed(text);
  if (!validate || (reply && validate(reply.value))) return;
  const why = reply ? `${validate.errors?.[0]?.instancePath || "/"} ${validate.errors?.[0]?.message ?? "does not match"}` : "it is not JSON";
  throw new GatewayError({
    status: 502,
    errorType: "provider_invalid_response",
    message: `the ${from} provider's reply does not follow the JSON schema asked for strictly (${why}); the provider takes only part of JSON Schema, so the gateway checks the rest`,
  });
}
