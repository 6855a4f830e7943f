import { isIP } from "node:net";
import type { DetectorName } from "../db/schema/types";

/** A kind of sensitive value found by pattern, confirmed by a checksum where one exists. */
export interface Detector {
  /** The placeholder's type: `[EMAIL_1]`. */
  readonly label: string;
  /** Global, so `matchAll` finds every occurrence; unused when `find` is given. */
  readonly pattern: RegExp;
  /** Finds the matches itself, where a single pattern could take quadratic time. */
  readonly find?: (text: string) => Array<{ start: number; end: number }>;
  readonly confirm?: (match: string) => boolean;
  /** Whether a match may contain whitespace: a stream must then hold back `maxLength` characters, not only the last word. */
  readonly spansWhitespace: boolean;
  /** The longest match, in characters: what a stream holds back at most. */
  readonly maxLength: number;
  /** Where an unfinished match that only later text can complete may start (a private key's header): a stream holds back from there. */
  readonly openingAt?: (text: string) => number | undefined;
}

const digitsOf = (text: string) => text.replace(/\D/g, "");

/** The Luhn check of payment card numbers. */
export function passesLuhn(number: string): boolean {
  let sum = 0;
  for (let index = 0; index < number.length; index++) {
    let digit = number.charCodeAt(number.length - 1 - index) - 48;
    if (index % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return number.length >= 12 && sum % 10 === 0;
}

/** ISO 13616: the country and check digits moved to the end, letters as numbers, mod 97 is 1. */
export function passesIbanChecksum(iban: string): boolean {
  const compact = iban.replace(/\s/g, "").toUpperCase();
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const value = char >= "A" ? String(char.charCodeAt(0) - 55) : char;
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return compact.length >= 15 && remainder === 1;
}

const DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE";

/** Spain's DNI and NIE: the letter is the number mod 23 (an NIE's X, Y, Z read as 0, 1, 2). */
export function passesSpanishId(id: string): boolean {
  const upper = id.toUpperCase();
  const number = Number(upper.slice(0, -1).replace(/^[XYZ]/, (prefix) => String("XYZ".indexOf(prefix))));
  return DNI_LETTERS[number % 23] === upper.at(-1);
}

/** Brazil's CPF: two mod-11 check digits. */
export function passesCpf(cpf: string): boolean {
  const digits = digitsOf(cpf);
  if (/^(\d)\1{10}$/.test(digits)) return false;
  const check = (length: number) => {
    let sum = 0;
    for (let index = 0; index < length; index++) sum += Number(digits[index]) * (length + 1 - index);
    const rest = (sum * 10) % 11;
    return (rest === 10 ? 0 : rest) === Number(digits[length]);
  };
  return check(9) && check(10);
}

const PRIVATE_KEY_HEADER = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----/g;
const PRIVATE_KEY_FOOTER = /-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----/g;
/** Longer than any PEM private key (an RSA 8192 key is about 6.5 KB): a header without a footer within it opens no key. */
const PRIVATE_KEY_MAX_LENGTH = 16 * 1024;

/** Each header to the first footer after it, in one pass: a lazy `[\s\S]*?` would rescan the text from every header that has no footer. */
function findPrivateKeys(text: string): Array<{ start: number; end: number }> {
  const keys: Array<{ start: number; end: number }> = [];
  const header = new RegExp(PRIVATE_KEY_HEADER.source, "g");
  const footer = new RegExp(PRIVATE_KEY_FOOTER.source, "g");
  for (let opened = header.exec(text); opened; opened = header.exec(text)) {
    footer.lastIndex = header.lastIndex;
    const closed = footer.exec(text);
    if (!closed) break;
    keys.push({ start: opened.index, end: footer.lastIndex });
    header.lastIndex = footer.lastIndex;
  }
  return keys;
}

function unfinishedPrivateKey(text: string): number | undefined {
  const header = new RegExp(PRIVATE_KEY_HEADER.source, "g");
  header.lastIndex = Math.max(0, text.length - PRIVATE_KEY_MAX_LENGTH);
  let last: number | undefined;
  for (let opened = header.exec(text); opened; opened = header.exec(text)) last = opened.index;
  if (last === undefined) return undefined;
  const footer = new RegExp(PRIVATE_KEY_FOOTER.source, "g");
  footer.lastIndex = last;
  return footer.test(text) ? undefined : last;
}

/** The key formats, found wherever they start: a key glued to the word before it (`mykeysk-proj-...`) is still a key. */
const API_KEY = /(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,}|xox[abprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}|(?:sk|rk)_live_[0-9A-Za-z]{20,}|glpat-[0-9A-Za-z_-]{20})\b/g;
/** Generated keys mix digits, upper- and lower-case letters; words (`risk-management-...`) do not. */
const looksGenerated = (key: string) => /\d/.test(key) && /[a-z]/.test(key) && /[A-Z]/.test(key);

/** Keys after a word boundary as they are; one glued to a preceding letter or digit only when it looks generated. */
function findApiKeys(text: string): Array<{ start: number; end: number }> {
  const keys: Array<{ start: number; end: number }> = [];
  for (const match of text.matchAll(API_KEY)) {
    const glued = match.index > 0 && /\w/.test(text[match.index - 1]!);
    if (!glued || looksGenerated(match[0])) keys.push({ start: match.index, end: match.index + match[0].length });
  }
  return keys;
}

/** The built-in detectors, by the check type that enables them. */
export const DETECTORS = {
  // Each pattern starts only where its match could (after a character it cannot contain): a scan
  // is then linear in the text, not in the text times the length of each word.
  email: { label: "EMAIL", pattern: /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g, spansWhitespace: false, maxLength: 254 },
  phone: {
    label: "PHONE",
    // International (+country), national with a trunk 0, or North American 3-3-4: a bare run of
    // digit groups (an IP address, the tail of an IBAN, a tax id) is not taken for a phone.
    pattern: /(?<![\w+.-])(?:\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{2,4}){1,4}|0\d{2,4}[ .-]?\d{3,4}[ .-]?\d{3,4}|\(?\d{3}\)?[ .-]?\d{3}[ .-]\d{4})(?![\w.-])/g,
    confirm: (match) => digitsOf(match).length >= 9 && digitsOf(match).length <= 15,
    spansWhitespace: true,
    maxLength: 24,
  },
  payment_card: { label: "CARD", pattern: /(?<!\d)\d(?:[ -]?\d){11,18}(?!\d)/g, confirm: (match) => passesLuhn(digitsOf(match)), spansWhitespace: true, maxLength: 23 },
  iban: { label: "IBAN", pattern: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b/g, confirm: passesIbanChecksum, spansWhitespace: true, maxLength: 42 },
  national_id: {
    label: "NATIONAL_ID",
    pattern: /\b(?:[XYZ]?\d{7,8}[A-Z]|\d{3}\.\d{3}\.\d{3}-\d{2})\b/g,
    confirm: (match) => (match.includes(".") ? passesCpf(match) : passesSpanishId(match)),
    spansWhitespace: false,
    maxLength: 14,
  },
  ip_address: {
    label: "IP",
    pattern: /(?<![\w.:])(?:\d{1,3}(?:\.\d{1,3}){3}|(?=[0-9A-Fa-f]{0,4}:)(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4})(?![\w.:])/g,
    confirm: (match) => isIP(match) !== 0,
    spansWhitespace: false,
    maxLength: 45,
  },
  api_key: {
    label: "API_KEY",
    pattern: API_KEY,
    find: findApiKeys,
    spansWhitespace: false,
    maxLength: 200,
  },
  private_key: {
    label: "PRIVATE_KEY",
    pattern: PRIVATE_KEY_HEADER,
    find: findPrivateKeys,
    spansWhitespace: true,
    maxLength: 40,
    openingAt: unfinishedPrivateKey,
  },
  jwt: { label: "JWT", pattern: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}/g, spansWhitespace: false, maxLength: 4096 },
} satisfies Record<DetectorName, Detector>;
