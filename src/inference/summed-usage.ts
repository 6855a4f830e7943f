/** Usages added up field by field, nested details too: what several calls answering one request used together. */
export function summedUsage<Usage extends object>(usages: readonly Usage[]): Usage {
  const total: Record<string, unknown> = {};
  for (const usage of usages) {
    for (const [name, value] of Object.entries(usage)) {
      if (typeof value === "number") total[name] = ((total[name] as number | undefined) ?? 0) + value;
      else if (value && typeof value === "object") total[name] = summedUsage([(total[name] as object | undefined) ?? {}, value]);
    }
  }
  return total as Usage;
}
