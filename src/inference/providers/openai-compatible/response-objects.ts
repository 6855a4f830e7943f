import type { ResponseObjectOperation } from "../../operations";
import { withoutContentType } from "../multipart";
import type { UpstreamCall } from "../types";

/** What the gateway forwards of a call on a stored response: the response's id and the client's query string (`?include[]=...`). */
export type ResponseObjectBody = { id: string; search: string };

/** A call on a response the provider keeps, under its API root (`{base_url}`, or Azure's `{endpoint}/openai/v1`). */
export function responseObjectCall(root: string, operation: ResponseObjectOperation, body: Record<string, unknown>, headers: Record<string, string>): UpstreamCall {
  const { id, search } = body as ResponseObjectBody;
  const url = `${root}/responses/${encodeURIComponent(id)}`;
  switch (operation) {
    case "response_retrieve":
      return { url: `${url}${search}`, method: "GET", headers: withoutContentType(headers) };
    case "response_input_items":
      return { url: `${url}/input_items${search}`, method: "GET", headers: withoutContentType(headers) };
    case "response_delete":
      return { url, method: "DELETE", headers: withoutContentType(headers) };
    case "response_cancel":
      return { url: `${url}/cancel`, headers, body: "{}" };
  }
}
