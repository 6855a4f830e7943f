import { A2A_PROTOCOL_VERSION, A2A_VERSION_HEADER, HTTP_EXTENSION_HEADER } from "@a2a-js/sdk";
import { VersionNotSupportedError } from "@a2a-js/sdk/errors";

export { A2A_VERSION_HEADER, HTTP_EXTENSION_HEADER };

/** The major the gateway speaks; minors within it are wire-compatible. */
const SERVED_MAJOR = A2A_PROTOCOL_VERSION.split(".")[0]!;
const VERSION_PATTERN = /^(\d+)(\.\d+){0,2}$/;

/**
 * The A2A version a caller asked for: an omitted header means the SDK's default version,
 * any 1.x is served, anything else is refused before the upstream is called.
 */
export function requestedVersion(headers: Headers): string {
  const raw = headers.get(A2A_VERSION_HEADER)?.trim();
  if (!raw) return A2A_PROTOCOL_VERSION;
  const major = VERSION_PATTERN.exec(raw)?.[1];
  if (major !== SERVED_MAJOR) {
    throw new VersionNotSupportedError(`A2A version '${raw}' is not supported: this gateway serves ${SERVED_MAJOR}.x (omit ${A2A_VERSION_HEADER} for ${A2A_PROTOCOL_VERSION})`);
  }
  return raw;
}

/**
 * The version sent upstream: the caller's when the upstream interface declares it, otherwise the
 * 1.x the interface declares, since an upstream checks for its exact version.
 */
export function versionForUpstream(requested: string, declared: string | undefined): string {
  if (!declared || declared === requested) return requested;
  return declared;
}
