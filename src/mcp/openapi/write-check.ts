import type { Principal } from "../../access";
import { badRequest } from "../../http/errors";
import { checkWrittenAddresses, mayReachPrivateNetwork, type OutboundReach, policyFor } from "../../outbound/reach";
import type { McpClientCreate, McpClientUpdate } from "../clients/schemas";
import { DocumentRefused } from "./document";
import { settingsFromInput } from "./settings";
import { loadApi } from "./source";

/** Where a document's fault is, as the write's field: inside the inline document, or at the URL it came from. */
function refusal(input: McpClientCreate, error: DocumentRefused) {
  if (input.openapi?.document !== undefined) return badRequest(error.message, error.field ? `openapi.document.${error.field}` : "openapi.document", "caller_openapi_document_invalid");
  return badRequest(error.field ? `${error.field}: ${error.message}` : error.message, "connection_string", "caller_openapi_document_invalid");
}

/** Whether a write changes what an openapi client's document, operations or credentials are (else its document is not read again to answer it). */
export const changesOpenApiSource = (body: McpClientUpdate) => body.openapi !== undefined || body.connection_string !== undefined || body.connection_type !== undefined;

/**
 * An openapi client is checked as it is written: its document read (a URL fetched under the
 * writer's reach), its operations and selection valid, its credentials named by the document's
 * schemes, and the API's address one its writer may point the gateway at. A 400 names the field.
 */
export async function checkOpenApiWrite(input: McpClientCreate, principal: Principal, outbound: OutboundReach): Promise<void> {
  if (input.connection_type !== "openapi") return;
  const settings = settingsFromInput(input.openapi ?? {}, input.connection_string);
  try {
    const api = await loadApi(settings, input.connection_string, policyFor(outbound, mayReachPrivateNetwork(principal, outbound)));
    // base_url was checked with the rest of the body; an address the document names is checked here.
    if (api.baseUrl.field !== "openapi.base_url") await checkWrittenAddresses({ [api.baseUrl.field]: api.baseUrl.url }, principal, outbound);
  } catch (error) {
    throw error instanceof DocumentRefused ? refusal(input, error) : error;
  }
}
