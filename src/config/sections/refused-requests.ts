import { type Static, Type as t } from "@sinclair/typebox";

/**
 * How a request refused for want of a valid virtual key (a 401) is logged (`logs_store.refused_requests`):
 * `without_content` (the default) keeps its row without the body, `off` keeps none. An anonymous
 * caller then writes no more to the log than its request line, however large its body.
 */
export const RefusedRequestLogging = t.Union([t.Literal("without_content"), t.Literal("off")], {
  description: "What the log keeps of a request refused for want of a valid virtual key (401): `without_content` (default) logs it without its body, `off` does not log it.",
});
export type RefusedRequestLogging = Static<typeof RefusedRequestLogging>;

export const DEFAULT_REFUSED_REQUEST_LOGGING: RefusedRequestLogging = "without_content";
