import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import type { HostResolver } from "../outbound/host-check";
import { type AddressAllowlist, refusalFor } from "./address-policy";

export interface DownloadPolicy {
  resolve: HostResolver;
  allowlist: AddressAllowlist;
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
}

/** A download the address policy, the size cap or the server refused; its message says why. */
export class DownloadRefused extends Error {}

/**
 * The connection's own name lookup: every address the name resolves to must pass the policy,
 * and the socket connects to one of those checked addresses, so a second, different answer
 * (DNS rebinding) cannot slip in between the check and the connection.
 */
function checkedLookup(policy: DownloadPolicy): LookupFunction {
  return (hostname, options, callback) => {
    policy.resolve(hostname).then(
      (addresses) => {
        const refusal = addresses.length === 0 ? `${hostname} has no address` : addresses.map(({ address }) => refusalFor(hostname, address, policy.allowlist)).find(Boolean);
        if (refusal) return callback(new DownloadRefused(refusal), "", 4);
        if (options.all) return callback(null, addresses);
        const first = addresses.find(({ family }) => !options.family || family === options.family) ?? addresses[0]!;
        callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, "", 4),
    );
  };
}

function refuseUnsafeTarget(url: URL, policy: DownloadPolicy): void {
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new DownloadRefused(`refused to download from ${url.protocol} URLs: only http and https are allowed`);
  const literal = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (isIP(literal) === 0) return;
  const refusal = refusalFor(literal, literal, policy.allowlist);
  if (refusal) throw new DownloadRefused(refusal);
}

function requestOnce(url: URL, policy: DownloadPolicy, signal: AbortSignal): Promise<IncomingMessage> {
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(url, { lookup: checkedLookup(policy), signal, headers: { accept: "application/javascript, text/javascript, text/plain, */*" } }, resolve);
    request.on("error", reject);
  });
}

async function readCapped(response: IncomingMessage, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers["content-length"] ?? 0);
  const tooLarge = () => new DownloadRefused(`refused: the plugin module is larger than the ${maxBytes}-byte limit`);
  if (declared > maxBytes) {
    response.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      response.destroy();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Fetches a plugin module over http or https. Every hop (redirects included) is checked
 * against the address policy before it is connected to, and the body is size-capped.
 */
export async function downloadPluginSource(location: string, policy: DownloadPolicy): Promise<Uint8Array> {
  const signal = AbortSignal.timeout(policy.timeoutMs);
  let url = new URL(location);
  for (let hop = 0; ; hop++) {
    refuseUnsafeTarget(url, policy);
    const response = await requestOnce(url, policy, signal).catch((error: Error) => {
      if (error instanceof DownloadRefused) throw error;
      throw new DownloadRefused(signal.aborted ? `download timed out after ${policy.timeoutMs} ms` : `download failed: ${error.message}`);
    });
    const status = response.statusCode ?? 0;
    const redirect = response.headers.location;
    if (status >= 300 && status < 400 && redirect) {
      response.resume();
      if (hop >= policy.maxRedirects) throw new DownloadRefused(`refused: more than ${policy.maxRedirects} redirects`);
      url = new URL(redirect, url);
      continue;
    }
    if (status !== 200) {
      response.resume();
      throw new DownloadRefused(`download failed: ${url.origin}${url.pathname} answered HTTP ${status}`);
    }
    return readCapped(response, policy.maxBytes);
  }
}
