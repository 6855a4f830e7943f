/**
 * Weighted random choice. Items with weight 0 are chosen only when none has a positive
 * weight, and then uniformly.
 */
export function chooseWeighted<T>(items: readonly T[], weightOf: (item: T) => number, random: () => number = Math.random): T | undefined {
  const weighted = items.filter((item) => weightOf(item) > 0);
  if (weighted.length === 0) return items[Math.floor(random() * items.length)];
  const total = weighted.reduce((sum, item) => sum + weightOf(item), 0);
  let point = random() * total;
  for (const item of weighted) {
    point -= weightOf(item);
    if (point < 0) return item;
  }
  return weighted[weighted.length - 1];
}
