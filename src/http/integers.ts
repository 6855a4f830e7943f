/**
 * The largest 32-bit signed integer: the bound of a stored whole number whose use needs no more
 * (a priority, a count of retries, seconds). Past 2^53 an integer column cannot be read back
 * into a number, and the gateway that stored it no longer starts.
 */
export const INT32_MAX = 2 ** 31 - 1;
