import type { GatewayError } from "../http/errors";
import type { NetworkConfig, ProviderKeyInput } from "../config/sections/providers";
import type { BatchApi } from "./batch-api";
import type { Operation, WireFormat } from "./operations";
import type { UpstreamReply } from "./fetch";
import type { EnvReader } from "../config/env-reference";
import type { OutboundPolicy } from "../outbound/host-check";

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
  /** Reads the key's `env.NAME` values, under the configuration's allow-list. */
  readEnv: EnvReader;
  /** The addresses calls for this target may reach. */
  outbound: OutboundPolicy;
}

export type HttpMethod = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface UpstreamCall {
  url: string;
  /** POST when omitted. */
  method?: HttpMethod;
  headers: Record<string, string>;
  /** JSON text, raw bytes (audio, stored objects, an uploaded file) or a multipart form; none for GET and DELETE. */
  body?: string | Uint8Array | Blob | FormData;
  /** The AWS service a call is signed for when it is not the provider's own (the S3 objects of Bedrock batch jobs). */
  signAs?: "s3";
}

export type UpstreamSuccess = Extract<UpstreamReply, { ok: true }>;

/** How an adapter names the models one key reaches: a call to make, and how to read its answer. */
export interface ModelListing {
  call(target: UpstreamTarget): UpstreamCall;
  /** The model ids in the provider's answer, as clients name them after `provider/`. */
  ids(body: unknown): string[];
}

/**
 * For a model that answers one result a call where a request may ask for several (Gemini's image
 * models and OpenAI's `n`): how many identical calls one attempt makes, and how their replies,
 * each read by the adapter's `readReply`, become the one the client gets.
 */
export interface FanOut {
  /** 1 for a request the model answers in one call; throws a GatewayError for a count it cannot make. */
  copies(operation: Operation, body: Record<string, unknown>, model: string): number;
  join(operation: Operation, replies: UpstreamSuccess[]): Promise<UpstreamSuccess>;
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
   * Optional async step before `buildCall`, for what a body holds that must be read first (the
   * files of a form, written inline); undefined when the operation needs none.
   */
  prepareBody?(operation: Operation, body: Record<string, unknown>): Promise<Record<string, unknown>> | undefined;
  /**
   * What the API takes of a body translated from another format, for APIs that refuse some of
   * it: fields they do not define (the canonical body carries other formats' extras), settings a
   * model refuses together. `model` is the provider's name for it. A custom provider, some other
   * server speaking the family's format, gets the body whole.
   */
  translatedBody?(operation: Operation, body: Record<string, unknown>, model: string): Record<string, unknown>;
  /**
   * Optional async step after `buildCall`, for what needs I/O or async crypto (SigV4 signing,
   * minting an access token). Failures it can name come back as a GatewayError value.
   */
  authorizeCall?(call: UpstreamCall, target: UpstreamTarget): UpstreamCall | Promise<UpstreamCall | GatewayError>;
  /** Reads a successful reply into the shape the operation answers with, for upstreams whose own shape differs. */
  readReply?(operation: Operation, reply: UpstreamSuccess, target: UpstreamTarget): Promise<UpstreamSuccess | GatewayError>;
  readonly fanOut?: FanOut;
  /** Key health: how to list the models a key reaches. */
  readonly listModels?: ModelListing;
  /** Batch and file calls, for providers that run batches. */
  readonly batches?: BatchApi;
}

/** A provider the gateway knows by name, or the family a custom provider speaks. */
export interface ProviderFamily {
  adapter: ProviderAdapter;
  /** API root including the version segment, e.g. `https://api.openai.com/v1`. */
  defaultBaseUrl?: string;
  /** Served at an address of the customer's own (a workspace), so `network_config.base_url` must name it. */
  requiresBaseUrl?: boolean;
}

/** The families by name: the registry is given them where the gateway is put together. */
export type ProviderFamilies = Readonly<Record<string, ProviderFamily>>;
