/** Conversations (and responses) remembered per node; past this, the one used least recently is forgotten. */
const MAX_REMEMBERED = 50_000;

/** A Map as a bounded cache: a Map keeps insertion order, so re-inserting marks an entry the most recent. */
function remember(map: Map<string, string>, id: string, value: string, capacity: number): void {
  map.delete(id);
  map.set(id, value);
  if (map.size > capacity) map.delete(map.keys().next().value!);
}

/**
 * Which key each conversation was last answered on, per provider, so its next turn goes to the
 * same key and finds the prompt prefix the provider cached for that key; and which conversation
 * each Responses reply belongs to, for a next turn that names it in `previous_response_id`. Only
 * in memory, per node.
 */
export class ConversationKeys {
  private readonly keys = new Map<string, string>();
  private readonly responses = new Map<string, string>();

  constructor(private readonly capacity = MAX_REMEMBERED) {}

  keyOf(provider: string, conversation: string): string | undefined {
    return this.keys.get(`${provider}\n${conversation}`);
  }

  conversationOfResponse(responseId: string): string | undefined {
    return this.responses.get(responseId);
  }

  /** Remembers the key that answered, and the conversation of the reply when it is a Responses reply with an id. */
  answeredOn(provider: string, conversation: string, keyId: string, responseId?: string): void {
    remember(this.keys, `${provider}\n${conversation}`, keyId, this.capacity);
    if (responseId !== undefined) remember(this.responses, responseId, conversation, this.capacity);
  }
}
