/**
 * Requests the gateway makes to itself (an async job's replay). Only these may carry what a
 * client must not choose, such as the id of the response a job writes; a header could be forged,
 * the identity of the Request object cannot.
 */
const internal = new WeakSet<Request>();

export function markInternal(request: Request): Request {
  internal.add(request);
  return request;
}

export const isInternal = (request: Request) => internal.has(request);
