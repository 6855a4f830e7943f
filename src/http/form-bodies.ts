import { Elysia } from "elysia";
import { GatewayError } from "./errors";

const FORM_URLENCODED = "application/x-www-form-urlencoded";

/**
 * Bodies are JSON (multipart forms where an API takes files): a URL-encoded form, which curl's
 * `-d` sends by default, is a 415 that says so, where it was parsed into strings and failed
 * validation field by field (`body field 'messages': Expected array`).
 */
export const refuseFormBodies = new Elysia({ name: "refuse-form-bodies" }).onParse({ as: "global" }, ({ contentType }) => {
  if (contentType?.toLowerCase().startsWith(FORM_URLENCODED)) {
    throw new GatewayError({
      status: 415,
      errorType: "caller_unsupported_media_type",
      message: `the request body must be JSON (content-type: application/json), not ${FORM_URLENCODED}`,
      param: "content-type",
    });
  }
});
