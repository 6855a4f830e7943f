import type { EventStore } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

interface StoredEvent {
  seq: number;
  streamId: string;
  message: JSONRPCMessage;
}

/**
 * One session's SSE events, the latest `limit` of them, so a caller whose stream broke resumes
 * with Last-Event-ID and gets what it missed (on the node the session lives on). Event ids are
 * `<stream>/<seq>`; an id older than what is kept replays what is left.
 */
export class SessionEventStore implements EventStore {
  private readonly events: StoredEvent[] = [];
  private seq = 0;

  constructor(private readonly limit: number) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    this.seq++;
    this.events.push({ seq: this.seq, streamId, message });
    if (this.events.length > this.limit) this.events.shift();
    return `${streamId}/${this.seq}`;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const at = eventId.lastIndexOf("/");
    return at > 0 ? eventId.slice(0, at) : undefined;
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const streamId = (await this.getStreamIdForEventId(lastEventId)) ?? "";
    const after = Number(lastEventId.slice(lastEventId.lastIndexOf("/") + 1));
    for (const event of this.events) {
      // The priming event a stream opens with is stored as an empty message: nothing to resend.
      if (event.streamId === streamId && event.seq > after && "jsonrpc" in event.message) await send(`${streamId}/${event.seq}`, event.message);
    }
    return streamId;
  }
}
