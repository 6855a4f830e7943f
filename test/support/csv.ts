/**
 * A strict RFC 4180 reader for checking the gateway's CSV: records of fields, quoted fields
 * with doubled quotes and line breaks inside, CRLF between records. Throws on a stray quote.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let at = 0;
  while (at < text.length) {
    let field = "";
    if (text[at] === '"') {
      at++;
      for (;;) {
        const quote = text.indexOf('"', at);
        if (quote < 0) throw new Error(`unterminated quoted field at ${at}`);
        field += text.slice(at, quote);
        at = quote + 1;
        if (text[at] !== '"') break;
        field += '"';
        at++;
      }
    } else {
      const end = text.slice(at).search(/[,\r]/);
      field = end < 0 ? text.slice(at) : text.slice(at, at + end);
      if (field.includes('"') || field.includes("\n")) throw new Error(`unquoted field with a quote or line break: ${field}`);
      at += field.length;
    }
    record.push(field);
    if (text[at] === ",") at++;
    else if (text.startsWith("\r\n", at) || at >= text.length) {
      records.push(record);
      record = [];
      at += 2;
    } else throw new Error(`unexpected ${JSON.stringify(text[at])} after a field at ${at}`);
  }
  return records;
}
