import type { Page } from "playwright-core";

/**
 * How many pixels of `rgb` the chart titled `title` has drawn on its canvas: 0 for a chart that
 * shows its axes and nothing else.
 */
export async function chartInk(page: Page, title: string, rgb: [number, number, number]): Promise<number> {
  const canvas = page.getByRole("figure", { name: title }).locator("canvas");
  return canvas.evaluate((element, [red, green, blue]) => {
    // The browser's canvas; the test's program has no DOM types.
    const drawn = element as unknown as { width: number; height: number; getContext(kind: "2d"): { getImageData(x: number, y: number, width: number, height: number): { data: Uint8ClampedArray } } };
    const { data } = drawn.getContext("2d").getImageData(0, 0, drawn.width, drawn.height);
    let count = 0;
    for (let at = 0; at < data.length; at += 4) {
      if (data[at + 3]! > 200 && Math.abs(data[at]! - red) < 24 && Math.abs(data[at + 1]! - green) < 24 && Math.abs(data[at + 2]! - blue) < 24) count++;
    }
    return count;
  }, rgb);
}
