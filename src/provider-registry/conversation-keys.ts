/** Conversations remembered per node; past this, the one used least recently is forgotten. */
const MAX_CONVERSATIONS = 50_000;

/**
 * Which key each conversation was last answered on, per provider, so its next turn goes to the
 * same key and finds the prompt prefix the provider cached for that key. Only in memory, per node.
 */
export class ConversationKeys {
  private readonly keys = new Map<string, string>();

  constructor(private readonly capacity = MAX_CONVERSATIONS) {}

  keyOf(provider: string, conversation: string): string | undefined {
    return this.keys.get(`${provider}\n${conversation}`);
  }

  /** Remembers the key that answered; a Map keeps insertion order, so re-inserting marks it the most recent. */
  answeredOn(provider: string, conversation: string, keyId: string): void {
    const id = `${provider}\n${conversation}`;
    this.keys.delete(id);
    this.keys.set(id, keyId);
    if (this.keys.size > this.capacity) this.keys.delete(this.keys.keys().next().value!);
  }
}
