/**
 * OpenAI's Evals API as the mock keeps it: an eval (its data source config and testing criteria),
 * runs of it over inline items that finish on their second read, each item graded by whether the
 * sample's text contains the item's `expected`, and the runs' output items.
 */

interface EvalRun {
  object: {
    id: string;
    object: "eval.run";
    eval_id: string;
    name: string;
    model: string;
    status: "queued" | "in_progress" | "completed" | "canceled";
    created_at: number;
    data_source: { type: string; source?: { type: string; content?: Array<{ item: Record<string, string> }> } };
    result_counts: { total: number; passed: number; failed: number; errored: number };
    report_url: string;
    metadata: Record<string, string> | null;
  };
  items: Array<{ id: string; object: "eval.run.output_item"; eval_id: string; run_id: string; status: "pass" | "fail"; datasource_item: Record<string, string>; results: unknown[]; created_at: number }>;
}

export interface Eval {
  object: { id: string; object: "eval"; name: string; data_source_config: unknown; testing_criteria: unknown[]; created_at: number; metadata: Record<string, string> | null };
  runs: Map<string, EvalRun>;
}

const evalError = (status: number, message: string, param: string | null = null) => Response.json({ error: { message, type: "invalid_request_error", param, code: null } }, { status });
const newId = (prefix: string) => `${prefix}_${crypto.randomUUID().replaceAll("-", "")}`;
const now = () => Math.floor(Date.now() / 1000);
const list = (data: Array<{ id: string }>) => ({ object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: false });

/** A run finishing: each inline item passes when the mock's sample (an echo of `input`) contains its `expected`. */
function finish(run: EvalRun): void {
  const rows = run.object.data_source.source?.content ?? [];
  run.items = rows.map(({ item }) => {
    const sample = `echo: ${item.input ?? ""}`;
    const passed = sample.includes(item.expected ?? "");
    return { id: newId("outputitem"), object: "eval.run.output_item", eval_id: run.object.eval_id, run_id: run.object.id, status: passed ? "pass" : "fail", datasource_item: item, results: [{ name: "contains", passed, score: passed ? 1 : 0 }], created_at: now() };
  });
  const passed = run.items.filter((item) => item.status === "pass").length;
  Object.assign(run.object, { status: "completed", result_counts: { total: rows.length, passed, failed: rows.length - passed, errored: 0 } });
}

function runCall(kept: Eval, method: string, runId: string | undefined, items: string | undefined, itemId: string | undefined, body: Record<string, unknown>): Response {
  if (!runId) {
    if (method === "GET") return Response.json(list([...kept.runs.values()].map((run) => run.object)));
    if (!body.data_source) return evalError(400, "Missing required parameter: 'data_source'.", "data_source");
    const id = newId("evalrun");
    const dataSource = body.data_source as EvalRun["object"]["data_source"] & { model?: string };
    const run: EvalRun = {
      object: { id, object: "eval.run", eval_id: kept.object.id, name: String(body.name ?? id), model: dataSource.model ?? "gpt-4o-mini", status: "queued", created_at: now(), data_source: dataSource, result_counts: { total: 0, passed: 0, failed: 0, errored: 0 }, report_url: `https://platform.openai.com/evaluations/${kept.object.id}?run_id=${id}`, metadata: (body.metadata as Record<string, string>) ?? null },
      items: [],
    };
    kept.runs.set(id, run);
    return Response.json(run.object);
  }
  const run = kept.runs.get(runId);
  if (!run) return evalError(404, `Run ${runId} not found.`);
  if (items) {
    if (!itemId) return Response.json(list(run.items));
    const item = run.items.find((candidate) => candidate.id === itemId);
    return item ? Response.json(item) : evalError(404, `Output item ${itemId} not found.`);
  }
  if (method === "DELETE") {
    kept.runs.delete(runId);
    return Response.json({ object: "eval.run.deleted", deleted: true, run_id: runId });
  }
  if (method === "POST") {
    if (run.object.status !== "completed") run.object.status = "canceled";
    return Response.json(run.object);
  }
  if (run.object.status === "queued") run.object.status = "in_progress";
  else if (run.object.status === "in_progress") finish(run);
  return Response.json(run.object);
}

/** Answers `/evals...` paths (those under /v1), or undefined for any other path. */
export function evalCall(evals: Map<string, Eval>, method: string, path: string, body: Record<string, unknown>): Response | undefined {
  const match = /^\/evals(?:\/(eval_\w+)(?:\/runs(?:\/(evalrun_\w+)(?:\/(output_items)(?:\/(outputitem_\w+))?)?)?)?)?$/.exec(path);
  if (!match) return undefined;
  const [, id, runId, items, itemId] = match;
  if (!id) {
    if (method === "GET") return Response.json(list([...evals.values()].map((kept) => kept.object)));
    if (!body.data_source_config) return evalError(400, "Missing required parameter: 'data_source_config'.", "data_source_config");
    const created: Eval = { object: { id: newId("eval"), object: "eval", name: String(body.name ?? "eval"), data_source_config: body.data_source_config, testing_criteria: (body.testing_criteria as unknown[]) ?? [], created_at: now(), metadata: (body.metadata as Record<string, string>) ?? null }, runs: new Map() };
    evals.set(created.object.id, created);
    return Response.json(created.object);
  }
  const kept = evals.get(id);
  if (!kept) return evalError(404, `Eval ${id} not found.`);
  if (path.includes("/runs")) return runCall(kept, method, runId, items, itemId, body);
  if (method === "DELETE") {
    evals.delete(id);
    return Response.json({ object: "eval.deleted", deleted: true, eval_id: id });
  }
  if (method === "POST") Object.assign(kept.object, { name: body.name ?? kept.object.name, metadata: body.metadata ?? kept.object.metadata });
  return Response.json(kept.object);
}
