/**
 * The OTLP trace request in its protobuf encoding, from the official definitions
 * (github.com/open-telemetry/opentelemetry-proto, Apache-2.0, copied unchanged beside this file).
 */
import type { Type } from "protobufjs";
import common from "./common.proto" with { type: "text" };
import resource from "./resource.proto" with { type: "text" };
import trace from "./trace.proto" with { type: "text" };
import traceService from "./trace_service.proto" with { type: "text" };

async function traceRequestType(): Promise<Type> {
  const { default: protobuf } = await import("protobufjs");
  const root = new protobuf.Root();
  for (const text of [common, resource, trace, traceService]) protobuf.parse(text, root);
  root.resolveAll();
  return root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");
}

let requestType: Promise<Type> | undefined;
/**
 * `ExportTraceServiceRequest`, loaded on first use: a gateway exporting JSON, or nothing, never
 * loads protobufjs (~25 ms of start on an idle machine, ten times that on a loaded one).
 */
export const exportTraceServiceRequest = (): Promise<Type> => (requestType ??= traceRequestType());
