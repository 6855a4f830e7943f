/**
 * A multipart body for the upstream from a form the client sent (Elysia hands it over as an
 * object: files as File, repeated fields as arrays, the rest as strings), with some fields
 * replaced or renamed. fetch writes the boundary, so callers set no content-type.
 */
export function multipartBody(fields: Record<string, unknown>, replaced: Record<string, string | Blob | undefined> = {}, renamed: Record<string, string> = {}): FormData {
  const form = new FormData();
  const append = (name: string, value: unknown) => {
    if (value === undefined || value === null) return;
    if (value instanceof Blob) form.append(name, value, value instanceof File ? value.name : "blob");
    else form.append(name, typeof value === "string" ? value : JSON.stringify(value));
  };
  for (const [name, value] of Object.entries({ ...fields, ...replaced })) {
    const upstreamName = renamed[name] ?? name;
    if (Array.isArray(value)) for (const item of value) append(upstreamName, item);
    else append(upstreamName, value);
  }
  return form;
}

/** Headers for a multipart call: the given ones without a content-type, which fetch sets with its boundary. */
export function withoutContentType(headers: Record<string, string>): Record<string, string> {
  const { "content-type": _json, ...rest } = headers;
  return rest;
}
