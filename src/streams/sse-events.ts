const encoder = new TextEncoder();

/** An `id:` line the upstream wrote: the gateway's own sequence number stands in its place. */
const ID_LINE = /^id:.*(\n|$)/gm;
/** The blank lines around an event, as a block between two blank lines can start or end with them. A regular expression written in a function is a new object at each call. */
const EDGE_NEWLINES = /^\n+|\n+$/g;

/**
 * Cuts SSE bytes into whole events (the text between blank lines, without them), keeping an
 * event cut between two reads for the next. Line ends are read as `\n`.
 */
export class SseEventSplitter {
  private readonly decoder = new TextDecoder();
  private rest = "";

  push(bytes: Uint8Array): string[] {
    this.rest += this.decoder.decode(bytes, { stream: true });
    if (!this.rest.includes("\n\n") && !this.rest.includes("\r\n\r\n")) return [];
    const blocks = this.rest.replaceAll("\r\n", "\n").split("\n\n");
    this.rest = blocks.pop()!;
    return events(blocks);
  }

  /** What the stream's last bytes left unended. */
  end(): string[] {
    const last = (this.rest + this.decoder.decode()).replaceAll("\r\n", "\n");
    this.rest = "";
    return events([last]);
  }
}

function events(blocks: string[]): string[] {
  const found: string[] = [];
  for (const block of blocks) {
    const event = block.replace(ID_LINE, "").replace(EDGE_NEWLINES, "");
    if (event) found.push(event);
  }
  return found;
}

/** One stored event as sent to a reader: its sequence number as the SSE `id`, which `Last-Event-ID` brings back. */
export const withId = (seq: number, event: string): Uint8Array => encoder.encode(`id: ${seq}\n${event}\n\n`);

export const isEventStream = (response: Response) => response.headers.get("content-type")?.startsWith("text/event-stream") === true;
