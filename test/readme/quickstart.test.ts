import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually } from "../support/eventually";
import { startGateway } from "../support/gateway";
import { REPO_ROOT } from "../support/main-process";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/** The README's blocks marked for these tests (```sh quickstart, ```ts quickstart, ```json config, ...), in order. */
async function markedBlocks(language: "sh" | "ts" | "python" | "json", mark = "quickstart"): Promise<string[]> {
  const readme = await Bun.file(join(REPO_ROOT, "README.md")).text();
  return [...readme.matchAll(new RegExp(`^\`\`\`${language} ${mark}\\n([\\s\\S]*?)^\`\`\`$`, "gm"))].map(([, block]) => block!);
}

/** `text` with `from` replaced by `to`, which must occur: a README that no longer says `from` fails here, not later. */
function replaced(text: string, from: string, to: string): string {
  expect(text).toContain(from);
  return text.replaceAll(from, to);
}

function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

/** The paragraph of the README right before the block marked `language mark`. */
async function textBefore(language: string, mark = "quickstart"): Promise<string> {
  const readme = await Bun.file(join(REPO_ROOT, "README.md")).text();
  const before = readme.slice(0, readme.indexOf(`\`\`\`${language} ${mark}\n`)).trimEnd();
  return before.slice(before.lastIndexOf("\n\n"));
}

// Where the reader's shell is: a folder of its own (gateway.log lands there) that sees the repository's files.
const workDir = mkdtempSync(join(tmpdir(), "gateway-quickstart-"));
for (const entry of ["package.json", "src", "actors", "node_modules", "tsconfig.json"]) symlinkSync(join(REPO_ROOT, entry), join(workDir, entry));
let upstream: MockOpenAI;
const shells: Array<ReturnType<typeof Bun.spawn>> = [];
beforeAll(() => {
  upstream = startMockOpenAI();
});
afterAll(() => {
  // Each shell's session: the gateway it started in the background goes with it.
  for (const shell of shells) {
    try {
      process.kill(-shell.pid, "SIGTERM");
    } catch {
      // Already gone.
    }
  }
  upstream.stop();
  rmSync(workDir, { recursive: true, force: true });
});

/**
 * The README's shell blocks pasted into one shell, on a port and database of their own, with
 * OpenAI-compatible servers of this test's: `OPENAI_BASE_URL` as the README says, and
 * `localUrl` for the local server. `bash -e` stops at the first failing command; a pasted shell
 * (`stopAtError` false) goes on.
 */
async function runQuickstart(localUrl: string, stopAtError: boolean) {
  const port = freePort();
  const gateway = `http://127.0.0.1:${port}`;
  const shellBlocks = await markedBlocks("sh");
  expect(shellBlocks.length).toBeGreaterThanOrEqual(4);
  let script = replaced(shellBlocks.join("\n"), "http://127.0.0.1:8080", gateway);
  script = replaced(script, "http://127.0.0.1:11434/v1", localUrl);
  const shell = Bun.spawn(["setsid", "bash", stopAtError ? "-euo" : "-uo", "pipefail", "-c", `${script}\necho "VK=$VK"`], {
    cwd: workDir,
    env: { ...process.env, PORT: String(port), GATEWAY_DB_URL: `file:${join(workDir, `gateway-${port}.db`)}`, OPENAI_API_KEY: "sk-quickstart-openai", OPENAI_BASE_URL: upstream.baseUrl },
    stdout: "pipe",
    stderr: "pipe",
  });
  shells.push(shell);
  const [code, output, errors] = await Promise.all([shell.exited, new Response(shell.stdout as ReadableStream).text(), new Response(shell.stderr as ReadableStream).text()]);
  return { gateway, code, output, errors };
}

test("the README's quickstart, pasted into a shell, registers providers, creates a virtual key, calls models with curl and the SDK, and shows the logs", async () => {
  const [sdkSnippet] = await markedBlocks("ts");
  expect(sdkSnippet).toBeDefined();
  const { gateway, code, output, errors } = await runQuickstart(upstream.baseUrl, true);
  expect({ code, errors, output: code === 0 ? "" : output }).toEqual({ code: 0, errors: "", output: "" });

  expect(output).toMatch(/^setup token: \S{20,}$/m);
  const virtualKey = output.match(/^VK=(sk-gw-\S+)$/m)?.[1];
  expect(virtualKey).toBeDefined();
  expect(output).toContain("virtual key: sk-gw-");
  // Both curl calls answered by the model behind each provider.
  expect(output.match(/"content":"echo: Say hello"/g)?.length).toBe(2);

  // The TypeScript snippet, run as the README says, with the virtual key the shell exported.
  const snippet = join(workDir, "hello.ts");
  await Bun.write(snippet, replaced(sdkSnippet!, "http://127.0.0.1:8080", gateway));
  const sdk = Bun.spawn([process.execPath, snippet], { cwd: workDir, env: { ...process.env, VK: virtualKey! }, stdout: "pipe", stderr: "pipe" });
  const [sdkCode, sdkOutput, sdkErrors] = await Promise.all([sdk.exited, new Response(sdk.stdout).text(), new Response(sdk.stderr).text()]);
  expect({ sdkCode, sdkOutput, sdkErrors }).toEqual({ sdkCode: 0, sdkOutput: "echo: Say hello\n", sdkErrors: "" });

  // OpenAI got the key from the gateway's environment, never the virtual key.
  const keysSent = upstream.requests.map((request) => request.headers.get("authorization"));
  expect(keysSent.filter((key) => key === "Bearer sk-quickstart-openai").length).toBe(2);
  expect(keysSent.some((key) => key?.includes("sk-gw-"))).toBe(false);

  // The logs call the README ends with shows the three calls once they are written.
  const token = output.match(/^setup token: (\S+)$/m)![1]!;
  const logs = await eventually(
    async () => (await (await fetch(`${gateway}/api/logs?limit=5`, { headers: { "x-gateway-setup-token": token } })).json()) as { logs: Array<{ provider: string; model: string; status: string }> },
    (page) => page.logs.length === 3,
    10_000,
  );
  expect(logs.logs.map(({ provider, status }) => `${provider} ${status}`).toSorted()).toEqual(["local success", "openai success", "openai success"]);
}, 60_000);

test("the quickstart's optional local server, absent, makes its call print the gateway's 502 and its error instead of nothing", async () => {
  const nothingListens = `http://127.0.0.1:${freePort()}/v1`;
  const { output, errors } = await runQuickstart(nothingListens, false);
  // OpenAI (this test's) still answers; the local call's failure is on the screen.
  expect(output).toContain('"content":"echo: Say hello"');
  expect(errors).toContain("error: 502");
  expect(output).toMatch(/"error":\{[^\n]*"message":"[^"]+"/);
}, 60_000);

test("the quickstart's first block, on a port already taken, shows the gateway's one-line reason instead of waiting forever", async () => {
  const taken = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("taken", { status: 503 }) });
  try {
    const [start] = await markedBlocks("sh");
    const shell = Bun.spawn(["setsid", "bash", "-uo", "pipefail", "-c", replaced(start!, "http://127.0.0.1:8080", `http://127.0.0.1:${taken.port}`)], {
      cwd: workDir,
      env: { ...process.env, PORT: String(taken.port), GATEWAY_DB_URL: `file:${join(workDir, "taken.db")}` },
      stdout: "pipe",
      stderr: "pipe",
    });
    shells.push(shell);
    const output = await new Response(shell.stdout as ReadableStream).text();
    expect(output).toContain(`port ${taken.port} on 127.0.0.1 is already in use`);
  } finally {
    taken.stop(true);
  }
}, 60_000);

test("the quickstart says what its SDK snippets need, and what it creates in the repository is git-ignored", async () => {
  expect(await textBefore("python")).toContain("pip install openai");
  expect(await textBefore("ts")).toContain("save it as `hello.ts`");
  const ignored = Bun.spawnSync(["git", "check-ignore", "gateway.log", "hello.ts"], { cwd: REPO_ROOT });
  expect(ignored.stdout.toString().trim().split("\n")).toEqual(["gateway.log", "hello.ts"]);
});

test("the README's Python snippet is valid Python and calls the gateway the TypeScript one calls, the same way", async () => {
  const [python] = await markedBlocks("python");
  const [typescript] = await markedBlocks("ts");
  expect(python).toBeDefined();
  const parsed = Bun.spawnSync(["python3", "-c", "import ast, sys; ast.parse(sys.stdin.read())"], { stdin: new TextEncoder().encode(python!), stderr: "pipe" });
  expect(parsed.stderr.toString()).toBe("");
  expect(parsed.exitCode).toBe(0);
  const baseUrl = (snippet: string) => snippet.match(/base_?url[=:]\s*"([^"]+)"/i)?.[1];
  expect(baseUrl(python!)).toBe(baseUrl(typescript!)!);
  const model = (snippet: string) => snippet.match(/model[=:]\s*"([^"]+)"/)?.[1];
  expect(model(python!)).toBe(model(typescript!)!);
  expect(python).toContain('os.environ["VK"]');
});

test("the README's config.json example starts a gateway whose providers answer", async () => {
  const [example] = await markedBlocks("json", "config");
  const config = JSON.parse(replaced(example!, "http://127.0.0.1:11434/v1", upstream.baseUrl));
  const gateway = await startGateway(config);
  try {
    const providers = (await (await gateway.admin("/api/providers")).json()) as { providers: Array<{ provider: string }> };
    expect(providers.providers.map(({ provider }) => provider).toSorted()).toEqual(["anthropic", "local", "openai"]);
    const reply = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "local/llama3.2", messages: [{ role: "user", content: "from the config" }] }),
    });
    expect(((await reply.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe("echo: from the config");
  } finally {
    await gateway.close();
  }
});
