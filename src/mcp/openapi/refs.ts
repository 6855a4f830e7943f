import { DocumentRefused, fieldPath, isObject, type Json } from "./document";

/** How many nodes the schemas of one document may expand to: refs that fan out must not exhaust memory. */
const MAX_EXPANDED_NODES = 200_000;
/** How deep a schema may nest: deeper is no real API's, and would exhaust the stack. */
const MAX_DEPTH = 256;

/** The value a `#/…` JSON pointer names in the document. */
function pointed(document: Json, ref: string, at: string): unknown {
  const steps = ref
    .slice(2)
    .split("/")
    .map((step) => decodeURIComponent(step).replaceAll("~1", "/").replaceAll("~0", "~"));
  let value: unknown = document;
  for (const step of ref === "#" ? [] : steps) {
    value = isObject(value) || Array.isArray(value) ? (value as Record<string, unknown>)[step] : undefined;
    if (value === undefined) throw new DocumentRefused(`$ref '${ref}' names nothing in the document`, at);
  }
  return value;
}

/**
 * Inlines the document's own `$ref`s (`#/components/...`) in a value. A ref to another file or
 * URL is refused: following it would be a call outside the outbound policy. A schema that refers
 * to itself is cut where it recurs (any value is accepted there).
 */
export class RefResolver {
  private expanded = 0;

  constructor(private readonly document: Json) {}

  resolve(value: unknown, at: string, within: readonly string[] = [], depth = 0): unknown {
    if (++this.expanded > MAX_EXPANDED_NODES) throw new DocumentRefused(`the document's schemas expand past ${MAX_EXPANDED_NODES} nodes`, at);
    if (depth > MAX_DEPTH) throw new DocumentRefused(`the document nests deeper than ${MAX_DEPTH} levels`, at);
    if (Array.isArray(value)) return value.map((item, index) => this.resolve(item, fieldPath(at, index), within, depth + 1));
    if (!isObject(value)) return value;
    if (typeof value.$ref === "string") return this.follow(value, value.$ref, at, within, depth);
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.resolve(item, fieldPath(at, key), within, depth + 1)]));
  }

  private follow(value: Json, ref: string, at: string, within: readonly string[], depth: number): unknown {
    const refField = fieldPath(at, "$ref");
    if (!ref.startsWith("#")) throw new DocumentRefused(`$ref '${ref}' points outside the document: only refs within it (#/components/...) are followed`, refField);
    if (within.includes(ref)) return { description: `(recursive: ${ref.split("/").at(-1)})` };
    const { $ref: _, ...siblings } = value;
    const target = this.resolve(pointed(this.document, ref, refField), refField, [...within, ref], depth + 1);
    // OpenAPI 3.1 lets a ref carry a description or summary of its own, which wins.
    return isObject(target) && Object.keys(siblings).length > 0 ? { ...target, ...(this.resolve(siblings, at, within, depth + 1) as Json) } : target;
  }
}
