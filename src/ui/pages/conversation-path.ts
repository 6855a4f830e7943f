const CONVERSATIONS = "/ui/logs/conversations/";

/** Where a conversation's thread is shown. */
export const conversationPath = (id: string) => `${CONVERSATIONS}${encodeURIComponent(id)}`;

/** The conversation a path names, if it is a thread's path. */
export const conversationOfPath = (path: string) => (path.startsWith(CONVERSATIONS) ? decodeURIComponent(path.slice(CONVERSATIONS.length)) : undefined);
