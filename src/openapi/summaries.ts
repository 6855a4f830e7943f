/**
 * An operation's summary when its route declares none (`detail.summary`): read from its method
 * and path as the REST conventions the routes follow put it: `GET /a/things` lists things,
 * `POST /a/things` creates one, `GET /a/things/{id}` gets one, `POST /a/things/{id}/cancel`
 * cancels one.
 */

const WORDS: Record<string, string> = {
  a2a: "A2A",
  api: "API",
  mcp: "MCP",
  oidc: "OIDC",
  oauth: "OAuth",
  rbac: "RBAC",
  ws: "WebSocket",
  ui: "dashboard",
  vk: "virtual key",
  v1: "",
  v2: "",
  v1beta: "",
  v1beta1: "",
  v1alpha: "",
};

const MOUNTS: Record<string, string> = {
  openai: "OpenAI mount",
  anthropic: "Anthropic mount",
  genai: "Gemini mount",
  bedrock: "Bedrock mount",
  cohere: "Cohere mount",
  "claude-code": "Claude Code mount",
  "{framework}": "framework mount",
};

const isParameter = (segment: string) => segment.startsWith("{");
/** Collections named by two segments (`chat/completions`, `audio/speech`). */
const QUALIFIERS = new Set(["chat", "audio", "images", "fine_tuning", "vector_stores", "realtime"]);

/** `virtual-keys` as "virtual keys", `generateContent` as "generate content", acronyms kept. */
function humanize(segment: string): string {
  return segment
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .split(/[-_. ]+/)
    .map((word) => WORDS[word.toLowerCase()] ?? word.toLowerCase())
    .filter(Boolean)
    .join(" ");
}

function singular(noun: string): string {
  if (/ies$/.test(noun)) return noun.replace(/ies$/, "y");
  if (/(ss|us)$/.test(noun)) return noun;
  if (/(ches|shes|xes|sses)$/.test(noun)) return noun.replace(/es$/, "");
  return noun.replace(/s$/, "");
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** What the last segments name: the collection, whether an item of it is addressed, and an action on it. */
function shape(segments: string[]): { noun: string; item: boolean; action?: string } {
  const last = segments.at(-1) ?? "";
  // `{model}:generateContent`, `{id}:subscribe`: an action on the addressed item.
  const colon = last.match(/^\{\w+\}:(.+)$/);
  const literals = segments.filter((segment) => !isParameter(segment));
  const collection = (from: number) => humanize(segments.slice(0, from).filter((segment) => !isParameter(segment)).at(-1) ?? "");
  if (colon) return { noun: collection(segments.length - 1), item: true, action: humanize(colon[1]!) };
  if (last === "{rest}") return { noun: collection(segments.length - 1), item: true, action: "call" };
  if (isParameter(last)) return { noun: collection(segments.length - 1), item: true };
  const beforeLast = segments.at(-2);
  if (beforeLast && isParameter(beforeLast) && literals.length > 1) return { noun: collection(segments.length - 2), item: true, action: humanize(last) };
  const qualifier = beforeLast && QUALIFIERS.has(beforeLast) ? `${humanize(beforeLast)} ` : "";
  return { noun: `${qualifier}${humanize(last)}`, item: false };
}

const withArticle = (noun: string) => `${/^[aeiou]/i.test(noun) ? "an" : "a"} ${noun}`;

function verbPhrase(method: string, { noun, item, action }: ReturnType<typeof shape>): string {
  const one = withArticle(singular(noun));
  if (action) return `${capitalized(action)} ${method === "get" ? `of ${one}` : one}`;
  switch (method) {
    case "get":
      return item ? `Get ${one}` : `List ${noun}`;
    case "post":
      return item ? `Update ${one}` : `Create ${one}`;
    case "put":
    case "patch":
      return item ? `Update ${one}` : `Update the ${noun}`;
    case "delete":
      return item ? `Delete ${one}` : `Delete ${noun}`;
    default:
      return `${method.toUpperCase()} ${noun}`;
  }
}

export function summaryOf(method: string, path: string): string {
  const segments = path.split("/").filter(Boolean);
  const mount = MOUNTS[segments[0] ?? ""];
  const phrase = verbPhrase(method, shape(segments)).replace(/\s+/g, " ").trim();
  return mount ? `${phrase} (${mount})` : phrase;
}
