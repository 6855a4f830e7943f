/** Where a reader following a stream gets its events, in order, each once. */
export interface StreamFollower {
  event(seq: number, event: string): void;
  /** The stream ended; `error` says why when it did not complete. */
  end(error?: string): void;
}

/** Why a stream that passed its size bound fails. */
export const tooLarge = (maxBytes: number) => `the stream passed the ${maxBytes} bytes a resumable stream keeps; the events after that were not kept`;

/**
 * A stream this node reads from the upstream: its events so far (up to the size bound), and the
 * readers following it here, each told of every event as it arrives. Past the bound, events are
 * still passed to the readers already following, but neither kept nor stored.
 */
export class LiveStream {
  /** Event `seq` is at `seq - 1`; only the events within the bound. */
  readonly events: string[] = [];
  private readonly followers = new Set<StreamFollower>();
  /** Events seen (their last sequence number), kept or not. */
  count = 0;
  bytes = 0;
  overBound = false;
  ended?: { error?: string };

  constructor(private readonly maxBytes: number) {}

  /** Adds the next event; answers whether it is kept (within the bound). */
  add(event: string): boolean {
    const seq = ++this.count;
    const size = Buffer.byteLength(event);
    if (!this.overBound && this.bytes + size > this.maxBytes) this.overBound = true;
    if (!this.overBound) {
      this.events.push(event);
      this.bytes += size;
    }
    for (const follower of this.followers) follower.event(seq, event);
    return !this.overBound;
  }

  /** Gives `follower` the events after `after`, then each as it arrives; answers how to stop following. */
  follow(follower: StreamFollower, after: number): () => void {
    for (let seq = after + 1; seq <= this.events.length; seq++) follower.event(seq, this.events[seq - 1]!);
    // Events past the bound were never kept: a reader that missed some cannot have them.
    const missed = this.overBound && after < this.count;
    if (this.ended || missed) {
      follower.end(missed ? tooLarge(this.maxBytes) : this.ended!.error);
      return () => undefined;
    }
    this.followers.add(follower);
    return () => this.followers.delete(follower);
  }

  finish(error?: string): void {
    this.ended = { error };
    for (const follower of this.followers) follower.end(error);
    this.followers.clear();
  }
}
