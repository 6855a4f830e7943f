import { Elysia, ValidationError } from "elysia";
import { databaseUnavailable } from "../db/unavailable";
import { GatewayError } from "./errors";
import { fieldFromPath } from "./field-path";
import { requestPath } from "./request-path";

/**
 * Elysia checks a coerced query value (a number, a boolean) on its own, as a "property" with no
 * path; the field is the query parameter that carried that value.
 */
function coercedQueryField(value: unknown, url: string): string {
  const names = [...new URL(url).searchParams].filter(([, raw]) => raw === String(value)).map(([name]) => name);
  return new Set(names).size === 1 ? names[0]! : "";
}

function fromValidation(error: Readonly<ValidationError>, url: string): GatewayError {
  const first = error.all[0];
  const coerced = error.type === "property";
  const field = !first || !("path" in first) ? "" : coerced ? coercedQueryField(first.value, url) : fieldFromPath(first.path);
  const where = error.type === "body" ? "body" : coerced ? "query" : error.type;
  const reason = first?.summary ?? first?.message ?? "is invalid";
  const param = field || where;
  const message = field ? `${where} field '${field}': ${reason}` : `${where}: ${reason}`;
  return new GatewayError({ status: 400, errorType: "caller_invalid_request", message, param });
}

const DATABASE_UNAVAILABLE = new GatewayError({
  status: 503,
  errorType: "gateway_database_unavailable",
  message: "the database is out of reach or busy; try again shortly",
  extra: { retry_after_ms: 1000 },
});

/** Maps every error the app can raise onto the gateway error body (spec section 7). */
export const errorHandler = new Elysia({ name: "error-handler" }).onError({ as: "global" }, ({ code, error, request }) => {
  if (error instanceof GatewayError) return error.toResponse();
  switch (code) {
    case "VALIDATION":
      return fromValidation(error, request.url).toResponse();
    case "PARSE":
      return new GatewayError({ status: 400, errorType: "caller_invalid_json", message: "request body is not valid JSON", param: "body" }).toResponse();
    case "NOT_FOUND":
      return new GatewayError({ status: 404, errorType: "caller_route_not_found", message: "no route matches this method and path" }).toResponse();
    default: {
      if (databaseUnavailable(error)) {
        console.error(`database unavailable: ${request.method} ${requestPath(request)} answered 503:`, (error as Error).cause ?? error);
        return DATABASE_UNAVAILABLE.toResponse();
      }
      console.error("unhandled error", error);
      return new GatewayError({ status: 500, errorType: "gateway_internal_error", message: "internal server error" }).toResponse();
    }
  }
});
