/** A comma-separated value (a query parameter, a header) as its non-blank, trimmed entries; undefined when there are none. */
export function commaList(raw: string | undefined): string[] | undefined {
  const values = raw
    ?.split(",")
    .map((value) => value.trim())
    .filter(Boolean);
  return values?.length ? values : undefined;
}
