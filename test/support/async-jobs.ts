import type { TestGateway } from "./gateway";

export interface JobBody {
  id: string;
  status: "pending" | "processing" | "completed" | "failed";
  request_type: string;
  created_at: string;
  expires_at: string;
  started_at?: string;
  completed_at?: string;
  status_code?: number;
  result?: Record<string, unknown>;
  error?: { error: { message: string; type: string }; extra_fields?: Record<string, unknown> };
}

export function submitJob(gw: TestGateway, kind: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gw.url}/v1/async/${kind}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
}

export function pollJob(gw: TestGateway, kind: string, id: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gw.url}/v1/async/${kind}/${id}`, { headers });
}

export async function submittedJob(gw: TestGateway, kind: string, body: unknown, headers: Record<string, string> = {}): Promise<JobBody> {
  const response = await submitJob(gw, kind, body, headers);
  if (response.status !== 202) throw new Error(`submission answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as JobBody;
}

/** Polls as a client would until the job has a result or an error (200), then returns it. */
export async function finishedJob(gw: TestGateway, kind: string, id: string, headers: Record<string, string> = {}): Promise<JobBody> {
  for (;;) {
    const response = await pollJob(gw, kind, id, headers);
    if (response.status === 200) return (await response.json()) as JobBody;
    if (response.status !== 202) throw new Error(`poll answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
    await Bun.sleep(5);
  }
}
