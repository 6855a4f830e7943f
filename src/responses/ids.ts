/** The id of the response a request produced: `resp_` and the request's UUID in hex. */
export const responseIdFor = (requestId: string) => `resp_${requestId.replaceAll("-", "")}`;

const STORED_ID = /^resp_[0-9a-f]{32}$/;

/** Whether `id` has the shape of the gateway's ids; OpenAI's own are longer, and need no lookup here. */
export const mayBeStored = (id: string) => STORED_ID.test(id);

/** The UUID (a request's, or a background job's) a gateway response id was made from. */
export function uuidOf(responseId: string): string {
  const hex = responseId.slice("resp_".length);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const OUTPUT_ITEM_ID = /^(?:rs|msg|fc)_([0-9a-f]{32})_\d+$/;

/** The gateway response an output item's id names (see outputItemId), or undefined for an id of another shape. */
export function responseIdOfItem(itemId: string): string | undefined {
  const hex = OUTPUT_ITEM_ID.exec(itemId)?.[1];
  return hex && `resp_${hex}`;
}
