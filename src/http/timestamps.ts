import { FormatRegistry, type StringOptions, Type } from "@sinclair/typebox";

const FORMAT = "rfc3339";

// A space may separate the date from the time (RFC 3339 5.6, NOTE) and stands for "+" in the
// offset: an unencoded "+" in a query string arrives as a space.
const SHAPE = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+\- ](\d{2}):(\d{2}))$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

/**
 * An RFC 3339 date-time naming a moment that exists: the pattern alone lets February 30 or
 * 10:60 through, which Date rolls over into another day, or makes an invalid date that breaks
 * the query it bounds. Leap seconds are refused: Date has none.
 */
function isTimestamp(text: string): boolean {
  const parts = SHAPE.exec(text);
  if (!parts) return false;
  const [year, month, day, hour, minute, second, offsetHours = 0, offsetMinutes = 0] = parts.slice(1).map((part) => Number(part ?? 0));
  const monthDays = month === 2 && isLeapYear(year!) ? 29 : DAYS_IN_MONTH[month! - 1];
  return monthDays !== undefined && day! >= 1 && day! <= monthDays && hour! < 24 && minute! < 60 && second! < 60 && offsetHours < 24 && offsetMinutes < 60;
}

FormatRegistry.Set(FORMAT, isTimestamp);

/** A string schema that accepts only an RFC 3339 timestamp (`parseTimestamp` reads it). */
export const Timestamp = (options: StringOptions = {}) => Type.String({ description: "RFC 3339", ...options, format: FORMAT });

/** The moment of a timestamp `Timestamp` accepted. */
export function parseTimestamp(text: string): Date {
  return new Date(text.replace(/^(\S{10}) /, "$1T").replace(/ (\d{2}:\d{2})$/, "+$1"));
}
