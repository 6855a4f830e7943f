import { GatewayError } from "../../http/errors";
import { usesBatchKeys } from "../../upstream/operations";
import type { OperationHandler, OperationRun } from "../operation-handlers";
import type { OwnExchange } from "../upstream-exchange";
import { runBatchCall } from "./run";

/** A batch or file call runs on the provider's batch backend, which may take several upstream calls, and hands out the gateway's ids. */
const runOnBatchApi: OwnExchange = async (adapter, operation, { provider, target, body }, send) => {
  if (!adapter.batches || !usesBatchKeys(operation)) return new GatewayError({ status: 400, errorType: "caller_unsupported_operation", message: `provider '${provider}' runs no batches or files` });
  return runBatchCall(adapter.batches, { operation, provider, target, body }, send);
};

const BATCH_RUN: OperationRun = { exchange: runOnBatchApi };

/** Batches and the files they read and write, attached to the pipeline: their calls are made by the adapter's `BatchApi`, not its `buildCall`. */
export const batchOperation: OperationHandler = {
  before: (call) => (usesBatchKeys(call.operation) ? BATCH_RUN : undefined),
};
