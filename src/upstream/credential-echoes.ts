/**
 * The credentials a call carried, taken out of what its upstream answered, in whatever spelling
 * the upstream echoes them: as sent, upper- or lower-cased, URL-encoded, or in base64 (standard
 * or URL-safe, wherever the key falls in the encoded text).
 */

export const REDACTED_CREDENTIAL = "[redacted]";

/** Shorter values would blank out ordinary words; real keys are far longer. */
const MIN_REDACTED_LENGTH = 8;

const textEncoder = new TextEncoder();
const REDACTED_BYTES = textEncoder.encode(REDACTED_CREDENTIAL);

const base64Url = (base64: string) => base64.replaceAll("+", "-").replaceAll("/", "_");

/**
 * The part of the base64 text of `credential` that only its bytes decide, with the credential
 * `offset` bytes into the encoded data (0, 1 or 2: every alignment it can have): the 4-character
 * groups that hold three of its bytes each.
 */
function base64Core(credential: Uint8Array, offset: number): string {
  const padded = new Uint8Array(offset + credential.length);
  padded.set(credential, offset);
  const first = Math.ceil(offset / 3);
  const last = Math.floor(padded.length / 3);
  return Buffer.from(padded).toString("base64").slice(first * 4, last * 4);
}

const KEPT_CREDENTIALS = 256;
const kept = new Map<string, readonly string[]>();

/** Every spelling of the credential looked for, longest first, none shorter than the minimum; worked out once per credential. */
export function echoesOf(credential: string): readonly string[] {
  if (credential.length < MIN_REDACTED_LENGTH) return [];
  const known = kept.get(credential);
  if (known) return known;
  if (kept.size >= KEPT_CREDENTIALS) kept.delete(kept.keys().next().value!);
  const echoes = spellingsOf(credential);
  kept.set(credential, echoes);
  return echoes;
}

function spellingsOf(credential: string): string[] {
  const bytes = textEncoder.encode(credential);
  const base64 = [0, 1, 2].map((offset) => base64Core(bytes, offset));
  const spellings = [credential, credential.toUpperCase(), credential.toLowerCase(), encodeURIComponent(credential), ...base64, ...base64.map(base64Url)];
  return [...new Set(spellings)].filter((spelling) => spelling.length >= MIN_REDACTED_LENGTH).sort((a, b) => b.length - a.length);
}

/** The text with every spelling of every credential replaced by `[redacted]`. */
export function withoutEchoes(text: string, credentials: readonly string[]): string {
  let redacted = text;
  for (const credential of credentials) for (const echo of echoesOf(credential)) if (redacted.includes(echo)) redacted = redacted.replaceAll(echo, REDACTED_CREDENTIAL);
  return redacted;
}

/** Bytes in, bytes out: what a stream's chunks become once the credentials are taken out. */
export interface EchoRedactor {
  edit(bytes: Uint8Array): Uint8Array;
  /** What was held back at the end of the last chunk (the start of a spelling that never finished). */
  flush(): Uint8Array | undefined;
}

/** The echoes by their first byte: a chunk is scanned once, comparing only where an echo could start. */
type EchoIndex = ReadonlyArray<readonly Buffer[] | undefined>;

function indexOfEchoes(echoes: readonly Buffer[]): EchoIndex {
  const index: Array<Buffer[] | undefined> = new Array(256).fill(undefined);
  for (const echo of echoes) (index[echo[0]!] ??= []).push(echo);
  return index;
}

/** How many bytes of `echo` match `bytes` from `at` on (stopping at the end of `bytes`). */
function matchedLength(bytes: Uint8Array, at: number, echo: Buffer): number {
  const length = Math.min(echo.length, bytes.length - at);
  for (let offset = 0; offset < length; offset++) if (bytes[at + offset] !== echo[offset]) return -1;
  return length;
}

/**
 * Where the echoes are: `whole` when one is in `bytes`, and `held`, how many of the last bytes
 * could be the start of one that the next chunk completes. One pass over the bytes.
 */
function scan(bytes: Uint8Array, index: EchoIndex): { whole: boolean; held: number } {
  let held = 0;
  for (let at = 0; at < bytes.length; at++) {
    const candidates = index[bytes[at]!];
    if (!candidates) continue;
    for (const echo of candidates) {
      const matched = matchedLength(bytes, at, echo);
      if (matched === echo.length) return { whole: true, held: 0 };
      if (matched > 0 && held === 0) held = matched;
    }
  }
  return { whole: false, held };
}

/** `bytes` with every echo replaced. */
function replaced(bytes: Buffer, echoes: readonly Buffer[]): Buffer {
  let out = bytes;
  for (const echo of echoes) {
    let at = out.indexOf(echo);
    if (at < 0) continue;
    const parts: Uint8Array[] = [];
    let from = 0;
    for (; at >= 0; at = out.indexOf(echo, from)) {
      parts.push(out.subarray(from, at), REDACTED_BYTES);
      from = at + echo.length;
    }
    parts.push(out.subarray(from));
    out = Buffer.concat(parts);
  }
  return out;
}

/**
 * Takes the credentials out of a stream's bytes as they pass: a spelling split across two chunks
 * is caught by holding back a chunk's end while it could be the start of one (never more than
 * one spelling's length, and nothing at all after an ordinary end such as an event's blank line).
 * A chunk without any is passed as it came, after one pass over its bytes. Undefined when there
 * is nothing to look for.
 */
export function echoRedactor(credentials: readonly string[]): EchoRedactor | undefined {
  const echoes = [...new Set(credentials.flatMap(echoesOf))].map((echo) => Buffer.from(echo));
  if (echoes.length === 0) return undefined;
  const index = indexOfEchoes(echoes);
  let heldBack: Buffer | undefined;
  return {
    edit(chunk) {
      let bytes: Uint8Array = heldBack ? Buffer.concat([heldBack, chunk]) : chunk;
      heldBack = undefined;
      let found = scan(bytes, index);
      if (found.whole) {
        bytes = replaced(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), echoes);
        found = scan(bytes, index);
      }
      if (found.held === 0) return bytes;
      heldBack = Buffer.from(bytes.subarray(bytes.length - found.held));
      return bytes.subarray(0, bytes.length - found.held);
    },
    flush() {
      const rest = heldBack;
      heldBack = undefined;
      return rest;
    },
  };
}

const defaultReaderOf = (stream: ReadableStream<Uint8Array>) => stream.getReader();

/** Redacting streams no one has read yet, with what they read and redact. */
const unreadRedactions = new WeakMap<ReadableStream<Uint8Array>, Redaction>();

export interface Redaction {
  source: ReadableStream<Uint8Array>;
  redactor: EchoRedactor;
}

/**
 * The stream with the credentials taken out of its bytes (the stream itself when there are none
 * to look for). Its upstream is only locked once it is read: a reader that edits the bytes anyway
 * may take the upstream and the redactor instead (`takeRedaction`), sparing every stream a
 * stream between and every chunk its reads.
 */
export function withoutEchoedCredentials(stream: ReadableStream<Uint8Array>, credentials: readonly string[]): ReadableStream<Uint8Array> {
  const redactor = echoRedactor(credentials);
  if (!redactor) return stream;
  let reader: ReturnType<typeof defaultReaderOf> | undefined;
  let cancelled = false;
  const redacted = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        unreadRedactions.delete(redacted);
        const upstream = (reader ??= defaultReaderOf(stream));
        for (;;) {
          const { done, value } = await upstream.read();
          if (cancelled) return;
          if (done) {
            const rest = redactor.flush();
            if (rest) controller.enqueue(rest);
            return controller.close();
          }
          const out = redactor.edit(value);
          if (out.length > 0) return controller.enqueue(out);
        }
      },
      cancel(reason) {
        cancelled = true;
        unreadRedactions.delete(redacted);
        if (reader) return reader.cancel(reason);
        // Taken by a reader of its own (takeRedaction), which cancels the upstream itself.
        if (!stream.locked) return stream.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  unreadRedactions.set(redacted, { source: stream, redactor });
  return redacted;
}

/**
 * The upstream and redactor of a redacting stream that has not been read, which the caller then
 * reads in its place, running every chunk through `redactor.edit` and `redactor.flush` at the end;
 * undefined for any other stream.
 */
export function takeRedaction(stream: ReadableStream<Uint8Array>): Redaction | undefined {
  const redaction = unreadRedactions.get(stream);
  if (!redaction || stream.locked) return undefined;
  unreadRedactions.delete(stream);
  return redaction;
}
