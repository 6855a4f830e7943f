import type { NetworkConfig, ProviderKeyInput } from "../../provider-registry/schemas";
import type { Operation, WireFormat } from "../operations";

/** A provider key as the pipeline sees it: decrypted, with its secret resolved from env if referenced. */
export interface UpstreamKey {
  id: string;
  secret: string;
  config: ProviderKeyInput;
}

export interface UpstreamTarget {
  baseUrl: string | undefined;
  network: NetworkConfig;
  /** The client's request headers, for adapters that forward protocol headers of their own format. */
  clientHeaders: Headers;
  /** The sub-path of an extended endpoint (Anthropic's `/messages/{path}`), for passthrough calls. */
  endpoint?: string;
  key: UpstreamKey | undefined;
  /** The provider's own model identifier, after aliases. */
  model: string;
}

export interface UpstreamCall {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** One upstream family. Adding a provider family is one folder exporting one of these. */
export interface ProviderAdapter {
  readonly format: WireFormat;
  /** For upstreams whose format depends on the model (Vertex serves Gemini and Anthropic models). */
  formatFor?(model: string): WireFormat;
  readonly operations: ReadonlySet<Operation>;
  /** Providers such as Ollama or vLLM are reachable without a key. */
  readonly keyOptional: boolean;
  buildCall(operation: Operation, target: UpstreamTarget, body: Record<string, unknown>, stream: boolean): UpstreamCall;
  /**
   * Optional async step after `buildCall`, for what needs I/O or async crypto (SigV4 signing,
   * minting an access token). Failures it can name come back as a GatewayError value.
   */
  authorizeCall?(call: UpstreamCall, target: UpstreamTarget): Promise<UpstreamCall | import("../../http/errors").GatewayError>;
}
