import type { Database } from "../db/client";
import type { Inference } from "../inference/handle";
import { promptField } from "./field";
import { promptRoutes } from "./routes";
import { promptRunRoutes } from "./run-routes";
import { PromptStore } from "./store";

/** Prompts: /api/prompts to keep them, /v1/prompts to run them through `inference`, and the `prompt` field of its chat bodies. */
export function createPrompts(db: Database, inference: Inference) {
  const store = new PromptStore(db);
  return { routes: promptRoutes(store), runRoutes: promptRunRoutes(store, inference), field: promptField(store) };
}
