import { Elysia, ValidationError } from "elysia";
import { duplicatedColumns } from "../db/duplicate-value";
import { databaseUnavailable } from "../db/unavailable";
import { conflict, GatewayError } from "./errors";
import { formBodyRefused, isFormBody } from "./form-bodies";
import { fieldFromPath } from "./field-path";
import { requestPath } from "./request-path";
import { violationSentence } from "./validation-sentence";

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
  const violation = first && "path" in first ? first : undefined;
  const coerced = error.type === "property" && violation ? coercedField(violation.value, new URL(url), route) : undefined;
  const field = !violation ? "" : coerced ? coerced.field : fieldFromPath(violation.path);
  const where = error.type === "body" ? "body" : (coerced?.where ?? (error.type === "property" ? "query" : error.type));
  const reason = violation ? violationSentence(violation) : "is invalid";
  const subject = where === "body" ? field || "body" : field ? `${where} field '${field}'` : where;
  return new GatewayError({ status: 400, errorType: "caller_invalid_request", message: `${subject} ${reason}`, param: field || where });
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

type ErrorContext = { code: unknown; error: unknown; request: Request; route: string };

/** The gateway error body of spec section 7 for every error the app can raise. */
function gatewayErrorOf({ code, error, request, route }: ErrorContext): GatewayError {
  if (error instanceof GatewayError) return error;
  switch (code) {
    case "VALIDATION": {
      const invalid = error as ValidationError;
      if (invalid.type === "response") return replyContractBroken(invalid, request, route);
      // A JSON route sent a URL-encoded form: what is wrong is the content type, not each field.
      if (invalid.type === "body" && isFormBody(request.headers)) return formBodyRefused();
      return fromValidation(invalid, request.url, route);
    }
    case "PARSE":
      // What the body parse hook refused (too deep, a missing virtual key) is wrapped in Elysia's parse error.
      if ((error as Error).cause instanceof GatewayError) return (error as Error).cause as GatewayError;
      return new GatewayError({ status: 400, errorType: "caller_invalid_json", message: "request body is not valid JSON", param: "body" });
    case "NOT_FOUND":
      return new GatewayError({ status: 404, errorType: "caller_route_not_found", message: "no route matches this method and path" });
    default: {
      if (databaseUnavailable(error)) {
        console.error(`database unavailable: ${request.method} ${requestPath(request)} answered 503:`, (error as Error).cause ?? error);
        return DATABASE_UNAVAILABLE;
      }
      const duplicated = duplicatedColumns(error);
      if (duplicated) return conflict(`another record already has this ${duplicated.join(" and ")}`, duplicated[0]);
      console.error("unhandled error", error);
      return new GatewayError({ status: 500, errorType: "gateway_internal_error", message: "internal server error" });
    }
  }
}

/**
 * Told of each request the gateway itself answers with a 4xx: the error it answers, what was
 * thrown, and the body as far as it was read (undefined when it could not be).
 */
export type RefusalListener = (request: Request, refusal: GatewayError, thrown: unknown, body: unknown) => void;

/** Maps every error onto the gateway error body; `onRefusal` hears of the gateway's own 4xx answers. */
export function errorHandling(onRefusal?: RefusalListener) {
  // Destructured, not read as a whole context: Elysia reads which fields a global hook names and
  // builds only those for every request (the whole context would cost a cookie parse and a copy
  // of the headers on each one).
  return new Elysia({ name: "error-handler" }).onError({ as: "global" }, ({ code, error, request, route, body }) => {
    const answered = gatewayErrorOf({ code, error, request, route });
    if (onRefusal && answered.isGatewayError && answered.status >= 400 && answered.status < 500) onRefusal(request, answered, error, body);
    return answered.toResponse();
  });
}

export const errorHandler = errorHandling();
