/** Turns a TypeBox error path (`/keys/0/weight`) into the field name a user wrote (`keys[0].weight`). */
export function fieldFromPath(path: string): string {
  return path
    .split("/")
    .filter(Boolean)
    .map((segment, index) => (/^\d+$/.test(segment) ? `[${segment}]` : index === 0 ? segment : `.${segment}`))
    .join("");
}
