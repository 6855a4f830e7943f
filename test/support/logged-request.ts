import { eventually } from "./eventually";
import type { TestGateway } from "./gateway";

/** The log of the one request tagged `x-gw-metadata-case: <testCase>`, in full, once it is stored with its outcome. */
export async function loggedRequest(gw: TestGateway, testCase: string): Promise<Record<string, unknown>> {
  const row = await eventually(
    async () => ((await (await gw.admin(`/api/logs?metadata_case=${testCase}`)).json()) as { logs: Array<{ id: string; status: string }> }).logs[0],
    (found) => found !== undefined && found.status !== "processing",
  );
  return (await (await gw.admin(`/api/logs/${row!.id}`)).json()) as Record<string, unknown>;
}
