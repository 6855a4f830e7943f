/** A module that loads but exports no plugin. */
export const greeting = "hello";
