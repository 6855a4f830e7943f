import { badRequest } from "../../http/errors";
import { keyConfigOf } from "../providers/bedrock/credentials";
import type { UpstreamCall, UpstreamTarget } from "../../upstream/adapter";

/** An S3 object as the gateway names it upstream: `bucket/key`. */
export interface S3Location {
  bucket: string;
  key: string;
}

export const locationId = ({ bucket, key }: S3Location) => `${bucket}/${key}`;

export function locationOf(id: string, param: string): S3Location {
  const slash = id.indexOf("/");
  if (slash <= 0 || slash === id.length - 1) throw badRequest(`'${id}' names no S3 object (bucket/key)`, param);
  return { bucket: id.slice(0, slash), key: id.slice(slash + 1) };
}

export const s3Uri = (location: S3Location) => `s3://${locationId(location)}`;

/** The bucket batch files go to: the key's default one in batch_s3_config, else its first. */
export function batchBucketOf(target: UpstreamTarget): { bucket: string; prefix: string } {
  const buckets = target.key?.config.bedrock_key_config?.batch_s3_config?.buckets ?? [];
  const chosen = buckets.find((bucket) => bucket.is_default) ?? buckets[0];
  if (!chosen) throw badRequest("Bedrock batches need a bucket: set bedrock_key_config.batch_s3_config.buckets on the key", "bedrock_key_config.batch_s3_config");
  return { bucket: chosen.bucket_name, prefix: (chosen.prefix ?? "").replace(/^\/+|\/+$/g, "") };
}

/** Keys are encoded segment by segment; `/` stays a separator. */
const encodeKey = (key: string) => key.split("/").map(encodeURIComponent).join("/");

/** Virtual-hosted style on AWS; path style under `network_config.base_url` (a local S3, a test double). */
export function objectUrl(target: UpstreamTarget, { bucket, key }: S3Location, query = ""): string {
  const root = target.baseUrl ? `${target.baseUrl.replace(/\/+$/, "")}/${bucket}` : `https://${bucket}.s3.${keyConfigOf(target).region}.amazonaws.com`;
  return `${root}/${encodeKey(key)}${query}`;
}

export const s3Call = (url: string, method: UpstreamCall["method"], extra: Partial<UpstreamCall> = {}): UpstreamCall => ({ url, method, headers: {}, signAs: "s3", ...extra });

export interface ListedObject {
  key: string;
  size: number;
  lastModified: string;
}

/**
 * The objects of a ListObjectsV2 answer. S3 answers XML; the three fields read here sit in flat
 * `<Contents>` elements, so they are read with patterns rather than a whole XML parser.
 */
export function listedObjects(xml: string): ListedObject[] {
  const field = (block: string, name: string) => block.match(new RegExp(`<${name}>([^<]*)</${name}>`))?.[1] ?? "";
  const unescape = (text: string) => text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, "&");
  return [...xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)].map(([, block]) => ({ key: unescape(field(block!, "Key")), size: Number(field(block!, "Size")), lastModified: field(block!, "LastModified") }));
}
