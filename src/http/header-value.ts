/** Printable ASCII and tab: what every HTTP client reads back exactly as it was sent. */
const PLAIN = /^[\t\x20-\x7e]*$/;

/**
 * `text` as a response header value: as it is when it is printable ASCII, else percent-encoded
 * as UTF-8 (a lone surrogate as U+FFFD). A header cannot carry a control character or anything
 * past Latin-1: a Response given one throws, after the provider has answered.
 */
export const headerValueOf = (text: string): string => (PLAIN.test(text) ? text : encodeURIComponent(text.toWellFormed()));
