import { PROVIDER_OBJECT_CALLS, type ProviderObjectBody, type ProviderObjectOperation } from "../../provider-objects";
import { withoutContentType } from "../multipart";
import type { UpstreamCall } from "../types";

/** A call on an object the provider keeps, under its API root (`{base_url}`, or Azure's `{endpoint}/openai/v1`). */
export function providerObjectCall(root: string, operation: ProviderObjectOperation, body: Record<string, unknown>, headers: Record<string, string>): UpstreamCall {
  const { path, search, json } = body as ProviderObjectBody;
  const { method } = PROVIDER_OBJECT_CALLS[operation];
  const url = `${root}${path}${search}`;
  if (method !== "POST") return { url, method, headers: withoutContentType(headers) };
  return { url, method, headers, body: JSON.stringify(json ?? {}) };
}
