import { Elysia, ValidationError } from "elysia";
import { duplicatedColumns } from "../db/duplicate-value";
import { databaseUnavailable } from "../db/unavailable";
import { conflict, GatewayError } from "./errors";
import { formBodyRefused, isFormBody } from "./form-bodies";
import { fieldFromPath } from "./field-path";
import { requestPath } from "./request-path";

/**
 * Elysia checks a coerced query value (a number, a boolean) on its own, as a "property" with no
 * path; the field is the query parameter that carried that value.
 */
/** Where a coerced value (a number in the query or the path) came from; Elysia's error names neither. */
function coercedField(value: unknown, url: URL, route: string): { where: string; field: string } {
  const raw = String(value);
  const names = [...url.searchParams].filter(([, given]) => given === raw).map(([name]) => name);
  if (names.length > 0) return { where: "query", field: new Set(names).size === 1 ? names[0]! : "" };
  const segments = url.pathname.split("/");
  const param = route.split("/").find((part, index) => part.startsWith(":") && decodeURIComponent(segments[index] ?? "") === raw);
  return param ? { where: "params", field: param.slice(1) } : { where: "query", field: "" };
}

function fromValidation(error: Readonly<ValidationError>, url: string, route: string): GatewayError {
  const first = error.all[0];
  const coerced = error.type === "property" && first && "path" in first ? coercedField(first.value, new URL(url), route) : undefined;
  const field = !first || !("path" in first) ? "" : coerced ? coerced.field : fieldFromPath(first.path);
  const where = error.type === "body" ? "body" : (coerced?.where ?? (error.type === "property" ? "query" : error.type));
  const reason = first?.summary ?? first?.message ?? "is invalid";
  const param = field || where;
  const message = field ? `${where} field '${field}': ${reason}` : `${where}: ${reason}`;
  return new GatewayError({ status: 400, errorType: "caller_invalid_request", message, param });
}

/** A reply that does not match its route's declared schema (checked only with GATEWAY_CHECK_REPLIES, in the tests). */
function replyContractBroken(error: Readonly<ValidationError>, request: Request, route: string): GatewayError {
  const first = error.all[0];
  const where = first && "path" in first ? `${first.path || "/"}: ${first.summary ?? first.message}` : error.message;
  console.error(`reply contract broken: ${request.method} ${route}: ${where}`);
  return new GatewayError({ status: 500, errorType: "gateway_reply_contract_broken", message: `the reply of ${request.method} ${route} does not match its declared schema at ${where}` });
}

const DATABASE_UNAVAILABLE = new GatewayError({
  status: 503,
  errorType: "gateway_database_unavailable",
  message: "the database is out of reach or busy; try again shortly",
  extra: { retry_after_ms: 1000 },
});

/** Maps every error the app can raise onto the gateway error body (spec section 7). */
export const errorHandler = new Elysia({ name: "error-handler" }).onError({ as: "global" }, ({ code, error, request, route }) => {
  if (error instanceof GatewayError) return error.toResponse();
  switch (code) {
    case "VALIDATION":
      if (error.type === "response") return replyContractBroken(error, request, route).toResponse();
      // A JSON route sent a URL-encoded form: what is wrong is the content type, not each field.
      if (error.type === "body" && isFormBody(request.headers)) return formBodyRefused().toResponse();
      return fromValidation(error, request.url, route).toResponse();
    case "PARSE":
      // What the body parse hook refused (too deep, a missing virtual key) is wrapped in Elysia's parse error.
      if (error.cause instanceof GatewayError) return error.cause.toResponse();
      return new GatewayError({ status: 400, errorType: "caller_invalid_json", message: "request body is not valid JSON", param: "body" }).toResponse();
    case "NOT_FOUND":
      return new GatewayError({ status: 404, errorType: "caller_route_not_found", message: "no route matches this method and path" }).toResponse();
    default: {
      if (databaseUnavailable(error)) {
        console.error(`database unavailable: ${request.method} ${requestPath(request)} answered 503:`, (error as Error).cause ?? error);
        return DATABASE_UNAVAILABLE.toResponse();
      }
      const duplicated = duplicatedColumns(error);
      if (duplicated) return conflict(`another record already has this ${duplicated.join(" and ")}`, duplicated[0]).toResponse();
      console.error("unhandled error", error);
      return new GatewayError({ status: 500, errorType: "gateway_internal_error", message: "internal server error" }).toResponse();
    }
  }
});
