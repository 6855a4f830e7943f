import { badRequest } from "../../http/errors";
import { isObject, type Json } from "./document";
import type { SecurityRequirement } from "./operations";

/** Where a credential goes on a request, as the document's security scheme says. */
export type CredentialPlacement = { in: "header"; name: string; prefix: string } | { in: "query"; name: string } | { in: "cookie"; name: string };

/** A security scheme of the document as the gateway applies a stored value: undefined for one it cannot (mutualTLS). */
export function placementOf(scheme: unknown): CredentialPlacement | undefined {
  if (!isObject(scheme)) return undefined;
  if (scheme.type === "apiKey" && typeof scheme.name === "string" && (scheme.in === "header" || scheme.in === "query" || scheme.in === "cookie")) {
    return scheme.in === "header" ? { in: "header", name: scheme.name, prefix: "" } : { in: scheme.in, name: scheme.name };
  }
  if (scheme.type === "http" && typeof scheme.scheme === "string") {
    const name = scheme.scheme.toLowerCase() === "bearer" ? "Bearer" : scheme.scheme.toLowerCase() === "basic" ? "Basic" : scheme.scheme;
    return { in: "header", name: "authorization", prefix: `${name} ` };
  }
  // A token obtained for an OAuth 2 or OpenID Connect scheme is sent as a bearer token.
  if (scheme.type === "oauth2" || scheme.type === "openIdConnect") return { in: "header", name: "authorization", prefix: "Bearer " };
  return undefined;
}

export const securitySchemesOf = (document: Json): Json => (isObject(document.components) && isObject(document.components.securitySchemes) ? document.components.securitySchemes : {});

/** Each stored credential must name a scheme of the document that the gateway can apply (a 400 naming it otherwise). */
export function checkCredentials(credentials: Record<string, string>, schemes: Json): void {
  for (const name of Object.keys(credentials)) {
    if (!(name in schemes)) throw badRequest(`the document has no security scheme '${name}' (components.securitySchemes names ${Object.keys(schemes).join(", ") || "none"})`, `openapi.credentials.${name}`);
    if (!placementOf(schemes[name])) throw badRequest(`security scheme '${name}' is not one the gateway can send a value for (apiKey, http, oauth2 or openIdConnect)`, `openapi.credentials.${name}`);
  }
}

/** Basic's value is `user:password`, sent encoded; every other value as it is. */
const encoded = (placement: CredentialPlacement, value: string) => (placement.in === "header" && placement.prefix === "Basic " ? Buffer.from(value).toString("base64") : value);

/**
 * The credentials one request carries: those of the first of the operation's alternatives that
 * every scheme of it has a value for (an empty alternative means none is needed). A document
 * that states no requirement anywhere gets every stored credential.
 */
export function credentialsFor(security: SecurityRequirement[] | undefined, schemes: Json, credentials: Record<string, string>): Array<{ placement: CredentialPlacement; value: string }> {
  const usable = security ? security.find((alternative) => isObject(alternative) && Object.keys(alternative).every((name) => credentials[name] !== undefined && placementOf(schemes[name]))) : credentials;
  return Object.keys(usable ?? {}).map((name) => {
    const placement = placementOf(schemes[name])!;
    return { placement, value: encoded(placement, credentials[name]!) };
  });
}
