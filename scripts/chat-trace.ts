/**
 * `npm run deps -- --trace chat`: the modules of src/inference a plain chat call passes through
 * (`POST /v1/chat/completions`, OpenAI format to an OpenAI provider, no stream), in the order it
 * first enters each. Every function of src/inference is made to say which module it is in as it
 * is loaded; one gateway, started on a mock OpenAI upstream, answers a call to warm up, then the
 * call that is traced, whose settling (after the reply has left) is waited for. The attached
 * operations (a module that makes an `OperationHandler`) are asked whether they take
 * part in every call: they are listed apart.
 */
import { relative, resolve } from "node:path";
import { parse } from "@babel/parser";

const ROOT = resolve(import.meta.dir, "..");
const TRACED = /\/src\/inference\/.*\.ts$/;

const entered: string[] = [];
/** The modules that attach an operation to the pipeline. */
const operations = new Set<string>();
let recording = false;
(globalThis as { __enteredModule?: (module: string) => void }).__enteredModule = (module) => {
  if (recording && !entered.includes(module)) entered.push(module);
};

type Node = { type: string; start: number; end: number; body?: Node | Node[] };

const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression", "ObjectMethod", "ClassMethod", "ClassPrivateMethod"]);

/** Every node under `node`, each once. */
function* nodesUnder(node: unknown): Generator<Node> {
  if (Array.isArray(node)) for (const item of node) yield* nodesUnder(item);
  else if (node && typeof node === "object" && typeof (node as Node).type === "string") {
    yield node as Node;
    for (const [key, value] of Object.entries(node)) if (key !== "loc" && key !== "extra" && value && typeof value === "object") yield* nodesUnder(value);
  }
}

/** The source with a call naming its module at the start of every function body. */
function instrumented(path: string, source: string): string {
  const module = JSON.stringify(relative(`${ROOT}/src/inference`, path).replace(/\.ts$/, ""));
  const call = `globalThis.__enteredModule(${module})`;
  if (/:\s*OperationHandler\s*(=\s*)?\{/.test(source)) operations.add(JSON.parse(module));
  const edits: [number, string][] = [];
  for (const node of nodesUnder(parse(source, { sourceType: "module", plugins: ["typescript"] }).program)) {
    if (!FUNCTIONS.has(node.type) || !node.body || Array.isArray(node.body)) continue;
    if (node.body.type === "BlockStatement") edits.push([node.body.start + 1, `${call};`]);
    else edits.push([node.body.start, `(${call}, `], [node.body.end, ")"]);
  }
  let out = source;
  for (const [at, text] of edits.sort(([a], [b]) => b - a)) out = out.slice(0, at) + text + out.slice(at);
  return out;
}

Bun.plugin({
  name: "enter-module trace",
  setup(build) {
    build.onLoad({ filter: TRACED }, async ({ path }) => ({ contents: instrumented(path, await Bun.file(path).text()), loader: "ts" }));
  },
});

export interface ChatTrace {
  /** The pipeline's modules, in the order the call first enters each. */
  pipeline: string[];
  /** The attached operations asked whether they take part. */
  asked: string[];
}

export async function traceChat(): Promise<ChatTrace> {
  const { startGateway } = await import("../test/support/gateway");
  const { startMockOpenAI } = await import("../test/support/mock-openai");
  const upstream = startMockOpenAI();
  const gateway = await startGateway({ providers: { openai: { keys: [{ id: "k1", value: "sk-trace" }], network_config: { base_url: upstream.baseUrl } } } });
  const chat = async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "Hello" }] }),
    });
    if (response.status !== 200) throw new Error(`the chat call answered ${response.status}: ${await response.text()}`);
    await response.text();
    // Settling waits for the next turn of the event loop once the reply has left.
    await new Promise((settled) => setImmediate(settled));
    await new Promise((settled) => setImmediate(settled));
  };
  try {
    await chat();
    recording = true;
    await chat();
    recording = false;
  } finally {
    await gateway.close();
    upstream.stop();
  }
  return { pipeline: entered.filter((module) => !operations.has(module)), asked: entered.filter((module) => operations.has(module)) };
}
