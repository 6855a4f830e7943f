import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export interface Series {
  label: string;
  values: Array<number | null>;
  color: string;
}

/** A time series drawn by uPlot, resized with its box; `times` are epoch seconds. */
export function TimeChart({ title, times, series, format }: { title: string; times: number[]; series: Series[]; format?: (value: number) => string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const styles = getComputedStyle(document.documentElement);
    const axis = { stroke: styles.getPropertyValue("--text-muted").trim(), grid: { stroke: styles.getPropertyValue("--border").trim(), width: 1 }, ticks: { show: false } };
    const plot = new uPlot(
      {
        width: element.clientWidth,
        height: 180,
        legend: { show: series.length > 1 },
        cursor: { y: false },
        scales: { x: { time: true } },
        axes: [axis, { ...axis, size: 60, values: (_self, ticks) => ticks.map((tick) => (format ? format(tick) : String(tick))) }],
        series: [{}, ...series.map((entry) => ({ label: entry.label, stroke: entry.color, fill: `${entry.color}22`, width: 2, points: { show: false } }))],
      },
      [times, ...series.map((entry) => entry.values)],
      element,
    );
    const resized = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: 180 }));
    resized.observe(element);
    return () => {
      resized.disconnect();
      plot.destroy();
    };
  }, [times, series]);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={box} role="img" aria-label={`${title} over time`} />
    </figure>
  );
}
