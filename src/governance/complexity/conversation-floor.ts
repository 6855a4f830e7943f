/** Conversations remembered; the longest idle is forgotten past it. */
const MAX_CONVERSATIONS = 50_000;

/**
 * The highest score each conversation reached, on this node, so a conversation never drops to a
 * lower tier: a short "thanks" late in a hard debugging session stays with the strong model. A
 * Map keeps insertion order and a raise moves its conversation to the end, so the first entry is
 * always the longest idle.
 */
export class ConversationFloor {
  private readonly highest = new Map<string, number>();

  /** The higher of `score` and the conversation's highest so far, which it then becomes. */
  raise(conversationId: string, score: number): number {
    const floor = Math.max(score, this.highest.get(conversationId) ?? 0);
    this.highest.delete(conversationId);
    this.highest.set(conversationId, floor);
    if (this.highest.size > MAX_CONVERSATIONS) this.highest.delete(this.highest.keys().next().value!);
    return floor;
  }
}
