/** The id of the response a request produced: `resp_` and the request's UUID in hex. */
export const responseIdFor = (requestId: string) => `resp_${requestId.replaceAll("-", "")}`;

const STORED_ID = /^resp_[0-9a-f]{32}$/;

/** Whether `id` has the shape of the gateway's ids; OpenAI's own are longer, and need no lookup here. */
export const mayBeStored = (id: string) => STORED_ID.test(id);
