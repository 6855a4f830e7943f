import type { Context } from "elysia";

/** Marks a response from a deprecated path (spec 9) and points at the path that replaces it. */
export function markDeprecated(set: Context["set"], successorPath: string): void {
  set.headers.deprecation = "true";
  set.headers.link = `<${successorPath}>; rel="successor-version"`;
}
