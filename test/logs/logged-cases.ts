import OpenAI from "openai";
import { eventually } from "../support/eventually";
import type { TestGateway } from "../support/gateway";

type LogPage = { logs: Array<{ id: string }> };
type LogDetail = { request_content: { messages: Array<{ content: string }> } };

/**
 * Chats through the gateway tagged with a test case (`x-gw-metadata-case`), and reads back the
 * prompts the logs of a case hold once they are all stored: for tests of logs that must arrive
 * late rather than never.
 */
export function loggedCases(gw: TestGateway) {
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
  const chat = (word: string, testCase: string) =>
    client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: word }] }, { headers: { "x-gw-metadata-case": testCase } });
  /** Waits (up to `timeoutMs`) for `count` logs of the case; answers the logs there are then. */
  const logged = (testCase: string, count: number, timeoutMs = 10_000) =>
    eventually(
      async () => ((await (await gw.admin(`/api/logs?metadata_case=${testCase}`)).json()) as LogPage).logs,
      (logs) => logs.length === count,
      timeoutMs,
    );
  return {
    chat,
    logged,
    /** One request logged: from then on the writer thread is open and the gateway's start-up writes are done. */
    async warmUp() {
      await chat("warm", "warm-up");
      await logged("warm-up", 1);
    },
    /** The first prompt of each log, sorted. */
    async promptsOf(logs: ReadonlyArray<{ id: string }>): Promise<string[]> {
      const details = await Promise.all(logs.map(async ({ id }) => (await (await gw.admin(`/api/logs/${id}`)).json()) as LogDetail));
      return details.map((log) => log.request_content.messages[0]?.content ?? "").toSorted();
    },
  };
}
