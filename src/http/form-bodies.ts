import { GatewayError } from "./errors";

const FORM_URLENCODED = "application/x-www-form-urlencoded";

/** Whether a request's body is a URL-encoded form, which curl's `-d` sends by default. */
export const isFormBody = (headers: Headers) => headers.get("content-type")?.toLowerCase().startsWith(FORM_URLENCODED) === true;

/**
 * Bodies are JSON (multipart forms where an API takes files): a URL-encoded form a JSON route was
 * sent is a 415 that says so, where its fields, parsed into strings, failed validation one by one
 * (`body field 'messages': Expected array`).
 */
export const formBodyRefused = () =>
  new GatewayError({
    status: 415,
    errorType: "caller_unsupported_media_type",
    message: `the request body must be JSON (content-type: application/json), not ${FORM_URLENCODED}`,
    param: "content-type",
  });
