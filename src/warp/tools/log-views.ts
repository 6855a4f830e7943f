/** Characters of a log's request or response content a tool shows at most. */
const CONTENT_CHARS = 4_000;

const isEmpty = (value: unknown) =>
  value === null || value === undefined || (Array.isArray(value) && value.length === 0) || (typeof value === "object" && !Array.isArray(value) && Object.keys(value as object).length === 0);

/** A log as the model sees it: the API's fields without the empty ones and the attempt trail. */
export function compactLog(view: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(view).filter(([name, value]) => name !== "attempts" && !isEmpty(value)));
}

export function truncated(text: string, limit = CONTENT_CHARS): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… [${text.length - limit} more characters]`;
}

/** A log with its content, each side cut to a size the model can take in. */
export function logWithContent(view: Record<string, unknown> & { request_content?: unknown; response_content?: unknown }): Record<string, unknown> {
  const { request_content, response_content, ...rest } = view;
  const request = request_content === null || request_content === undefined ? undefined : truncated(JSON.stringify(request_content));
  const response = typeof response_content === "string" ? truncated(response_content) : undefined;
  return { ...compactLog(rest), ...(request ? { request_content: request } : {}), ...(response ? { response_content: response } : {}), attempts: view.attempts };
}
