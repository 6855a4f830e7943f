import type { TProperties } from "@sinclair/typebox";
import { t } from "elysia";

/** A mount route's own path parameters; under the framework mounts a route also has `framework`, from its prefix. */
export const pathParams = <Properties extends TProperties>(properties: Properties) => t.Object(properties, { additionalProperties: true });

/** A mount's prefix as `request` used it, its parameters filled in (`/:framework/genai` → `/litellm/genai`): the root of URLs handed back to the client. */
export function prefixAsRequested(prefix: string, request: Request): string {
  const { origin, pathname } = new URL(request.url);
  return origin + pathname.split("/").slice(0, prefix.split("/").length).join("/");
}
