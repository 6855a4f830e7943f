import { PROVIDER_OBJECT_CALLS, type ProviderObjectBody, type ProviderObjectOperation } from "../../upstream/provider-objects";
import { multipartBody, withoutContentType } from "./multipart";
import type { UpstreamCall } from "../../upstream/adapter";

const isFile = (value: unknown) => value instanceof Blob || (Array.isArray(value) && value.some((item) => item instanceof Blob));

/** A form the client sent carries a file or several (a container file's upload, a skill's folder); JSON does not. */
const carriesFile = (json: unknown): json is Record<string, unknown> => typeof json === "object" && json !== null && Object.values(json).some(isFile);

/** A call on an object the provider keeps, under its API root (`{base_url}`, Azure's `{endpoint}/openai/v1`, Anthropic's `{base}`). */
export function providerObjectCall(root: string, operation: ProviderObjectOperation, body: Record<string, unknown>, headers: Record<string, string>): UpstreamCall {
  const { path, search, json, bytes, contentType } = body as ProviderObjectBody;
  const { method } = PROVIDER_OBJECT_CALLS[operation];
  const url = `${root}${path}${search}`;
  if (method !== "POST" && method !== "PATCH") return { url, method, headers: withoutContentType(headers) };
  if (bytes) return { url, method, headers: { ...withoutContentType(headers), ...(contentType ? { "content-type": contentType } : {}) }, body: new Uint8Array(bytes) };
  if (carriesFile(json)) return { url, method, headers: withoutContentType(headers), body: multipartBody(json) };
  return { url, method, headers, body: JSON.stringify(json ?? {}) };
}
