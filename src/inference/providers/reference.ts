import type { Operation } from "../../upstream/operations";
import { BUILT_IN_PROVIDERS } from "./catalog";
import { PROVIDER_NOTES } from "./notes";

export const PROVIDERS_DOC = "docs/providers.md";
export const README = "README.md";

/** What a reader calls each operation a provider offers, in the order the table lists them. */
const OFFERED: ReadonlyArray<[string, readonly Operation[]]> = [
  ["chat", ["chat"]],
  ["responses", ["responses"]],
  ["embeddings", ["embedding"]],
  ["rerank", ["rerank"]],
  ["images", ["image_generation", "image_edit"]],
  ["speech", ["speech"]],
  ["transcription", ["transcription"]],
  ["video", ["video_generation"]],
  ["realtime", ["realtime", "live"]],
  ["batches", ["batch_create"]],
];

const START_MARK = "<!-- providers:start";
const START = `${START_MARK}: generated from the provider registry by \`npm run providers-reference\`; edit src/inference/providers, not this list -->`;
const END = "<!-- providers:end -->";

function offered(name: string): string {
  const operations = BUILT_IN_PROVIDERS[name]!.adapter.operations;
  return OFFERED.filter(([, ops]) => ops.some((operation) => operations.has(operation))).map(([label]) => label).join(", ");
}

function row(name: string): string {
  const note = PROVIDER_NOTES[name];
  if (!note) throw new Error(`provider ${name} has no entry in src/inference/providers/notes.ts`);
  const family = BUILT_IN_PROVIDERS[name]!;
  const root = family.defaultBaseUrl ? `\`${family.defaultBaseUrl}\`` : family.requiresBaseUrl ? "yours (`network_config.base_url`)" : "from the key";
  return `| \`${name}\` | ${note.title} | ${offered(name)} | ${root} | ${note.key} | ${note.notes ?? ""} |`;
}

/** The table of every built-in provider, as docs/providers.md shows it. */
export function renderProviderTable(): string {
  const names = Object.keys(BUILT_IN_PROVIDERS);
  return [START, "", "| name | service | operations | API root | key | notes |", "|---|---|---|---|---|---|", ...names.map(row), "", END].join("\n");
}

/** The README's one-line list of the built-in providers' names. */
export const renderProviderList = () => [START, Object.keys(BUILT_IN_PROVIDERS).map((name) => `\`${name}\``).join(", "), END].join("\n");

/** `document` with the text between the markers replaced by `generated`; throws when the markers are missing. */
export function withGenerated(document: string, generated: string): string {
  const start = document.indexOf(START_MARK);
  const end = document.indexOf(END);
  if (start < 0 || end < start) throw new Error("the providers:start / providers:end markers are missing");
  return document.slice(0, start) + generated + document.slice(end + END.length);
}

if (import.meta.main) {
  await Bun.write(PROVIDERS_DOC, withGenerated(await Bun.file(PROVIDERS_DOC).text(), renderProviderTable()));
  await Bun.write(README, withGenerated(await Bun.file(README).text(), renderProviderList()));
  console.log(`wrote the provider list in ${PROVIDERS_DOC} and ${README}`);
}
