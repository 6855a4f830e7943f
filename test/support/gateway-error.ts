import { expect } from "bun:test";
import type { GatewayErrorBody } from "../../src/http/errors";

export interface ExpectedError {
  /** `error.param`: the field the caller got wrong. */
  param?: string;
  /** `extra_fields.error_type`, exactly or by pattern. */
  errorType?: string | RegExp;
}

/**
 * Asserts the response is the gateway error body of spec section 7 with the given status, and
 * returns the parsed body for further checks.
 */
export async function expectGatewayError(response: Response, status: number, expected: ExpectedError = {}): Promise<GatewayErrorBody> {
  const text = await response.text();
  expect({ status: response.status, text }).toMatchObject({ status });
  const body = JSON.parse(text) as GatewayErrorBody;
  // Bun's toMatchObject writes the asymmetric matchers into the object it checks: match a copy.
  expect(structuredClone(body)).toMatchObject({
    event_id: expect.any(String),
    type: expect.any(String),
    is_gateway_error: expect.any(Boolean),
    status_code: status,
    error: { type: expect.any(String), code: expect.any(String), message: expect.any(String), event_id: body.event_id },
    extra_fields: { error_type: expect.stringMatching(/^(caller|policy|provider|gateway)_[a-z_]+$/) },
  });
  expect(body.error.message.length).toBeGreaterThan(0);
  if ("param" in body.error) expect(body.error.param).toEqual(expect.any(String));
  if (expected.param !== undefined) expect(body.error.param).toBe(expected.param);
  if (expected.errorType instanceof RegExp) expect(body.extra_fields.error_type).toMatch(expected.errorType);
  else if (expected.errorType !== undefined) expect(body.extra_fields.error_type).toBe(expected.errorType);
  return body;
}

/** POSTs JSON (or a raw string body) to the gateway without any SDK in between. */
export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
