/** How the genai mount rewrites a provider's reply for the client, where the method the client called answers in another shape or name. */

/** A successful JSON reply rewritten for the client's method; an error passes as it is. */
export async function rewritten<Body>(response: Response, rewrite: (body: Body) => unknown): Promise<Response> {
  if (!response.ok) return response;
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return Response.json(rewrite((await response.json()) as Body), { status: response.status, headers });
}

/**
 * Veo's operation, named with the provider that makes it (`models/vertex%2Fveo-3.0-generate-001/operations/…`):
 * its polls go back there, whichever other provider keeps operations of the same name.
 */
export const withProviderInName = (response: Response) =>
  rewritten(response, (operation: { name?: unknown }) => {
    const provider = response.headers.get("x-gw-provider");
    return typeof operation.name === "string" && provider ? { ...operation, name: operation.name.replace(/^models\//, `models/${provider}%2F`) } : operation;
  });
