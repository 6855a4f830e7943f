import type { Principal } from "../../access";
import { badRequest } from "../../http/errors";
import { checkWrittenAddresses, mayReachPrivateNetwork, type OutboundReach, policyFor } from "../../outbound/reach";
import type { McpClientCreate, McpClientUpdate } from "../clients/schemas";
import { DocumentRefused } from "./document";
import { settingsFromInput } from "./settings";
import { type LoadedApi, loadApi, type OpenApiSettings } from "./source";

/** Where a document's fault is, as the write's field: inside the inline document (`documentParam`), or at the URL it came from. */
function refusal(documentParam: string | undefined, error: DocumentRefused) {
  if (documentParam) return badRequest(error.message, error.field ? `${documentParam}.${error.field}` : documentParam, "caller_openapi_document_invalid");
  return badRequest(error.field ? `${error.field}: ${error.message}` : error.message, "connection_string", "caller_openapi_document_invalid");
}

/**
 * Reads a document as its writer may: a URL fetched under the writer's reach, the address its
 * servers name checked like a written one. A fault is a 400 naming the field: inside an inline
 * document under `documentParam`, else `connection_string`.
 */
export async function loadAsWritten(settings: OpenApiSettings, documentUrl: string | undefined, writer: Principal, outbound: OutboundReach, documentParam: string): Promise<LoadedApi> {
  const inline = settings.document !== undefined ? documentParam : undefined;
  try {
    const api = await loadApi(settings, documentUrl, policyFor(outbound, mayReachPrivateNetwork(writer, outbound)));
    // base_url was checked with the rest of the body; an address the document names is checked here.
    if (api.baseUrl.fromDocument) await checkWrittenAddresses({ [inline ? `${inline}.servers[0].url` : "connection_string"]: api.baseUrl.url }, writer, outbound);
    return api;
  } catch (error) {
    throw error instanceof DocumentRefused ? refusal(inline, error) : error;
  }
}

/** Whether a write changes what an openapi client's document, operations or credentials are (else its document is not read again to answer it). */
export const changesOpenApiSource = (body: McpClientUpdate) => body.openapi !== undefined || body.connection_string !== undefined || body.connection_type !== undefined;

/**
 * An openapi client is checked as it is written: its document read, its operations and selection
 * valid, its credentials named by the document's schemes, and the API's address one its writer
 * may point the gateway at. A 400 names the field.
 */
export async function checkOpenApiWrite(input: McpClientCreate, writer: Principal, outbound: OutboundReach): Promise<void> {
  if (input.connection_type !== "openapi") return;
  await loadAsWritten(settingsFromInput(input.openapi ?? {}, input.connection_string), input.connection_string, writer, outbound, "openapi.document");
}
