/**
 * The OTLP trace request in its protobuf encoding, from the official definitions
 * (github.com/open-telemetry/opentelemetry-proto, Apache-2.0, copied unchanged beside this file).
 */
import protobuf from "protobufjs";
import common from "./common.proto" with { type: "text" };
import resource from "./resource.proto" with { type: "text" };
import trace from "./trace.proto" with { type: "text" };
import traceService from "./trace_service.proto" with { type: "text" };

function traceRequestType(): protobuf.Type {
  const root = new protobuf.Root();
  for (const text of [common, resource, trace, traceService]) protobuf.parse(text, root);
  root.resolveAll();
  return root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");
}

let requestType: protobuf.Type | undefined;
/** `ExportTraceServiceRequest`, parsed on first use: a gateway exporting JSON never parses the definitions. */
export const exportTraceServiceRequest = (): protobuf.Type => (requestType ??= traceRequestType());
