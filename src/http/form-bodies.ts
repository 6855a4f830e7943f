import { GatewayError } from "./errors";

const FORM_URLENCODED = "application/x-www-form-urlencoded";
const MULTIPART_FORM = "multipart/form-data";

const contentTypeOf = (headers: Headers) => headers.get("content-type")?.toLowerCase() ?? "";

/** Whether a request's body is a URL-encoded form, which curl's `-d` sends by default. */
export const isFormBody = (headers: Headers) => contentTypeOf(headers).startsWith(FORM_URLENCODED);

/** The form encoding a request's body is in, as an HTML form on any page can send it, if it is one. */
export const formEncodingOf = (headers: Headers) => [FORM_URLENCODED, MULTIPART_FORM].find((type) => contentTypeOf(headers).startsWith(type));

/**
 * Bodies are JSON (multipart forms where an API takes files): a URL-encoded form a JSON route was
 * sent is a 415 that says so, where its fields, parsed into strings, failed validation one by one
 * (`body field 'messages': Expected array`).
 */
export const formBodyRefused = (encoding = FORM_URLENCODED) =>
  new GatewayError({
    status: 415,
    errorType: "caller_unsupported_media_type",
    message: `the request body must be JSON (content-type: application/json), not ${encoding}`,
    param: "content-type",
  });
