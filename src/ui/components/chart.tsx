import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import { formatTime } from "../lib/format";
import "uplot/dist/uPlot.min.css";

export interface Series {
  label: string;
  values: Array<number | null>;
  color: string;
}

/** A custom property's colour as the canvas takes it (the properties hold light-dark() pairs). */
function resolvedColor(property: string): string {
  const probe = document.createElement("span");
  probe.style.color = `var(${property})`;
  document.body.append(probe);
  const color = getComputedStyle(probe).color;
  probe.remove();
  return color;
}

interface TimeChartProps {
  title: string;
  times: number[];
  series: Series[];
  format?: (value: number) => string;
}

/** A time series drawn by uPlot, resized with its box; `times` are epoch seconds. */
export function TimeChart({ title, times, series, format }: TimeChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const axis = { stroke: resolvedColor("--text-muted"), grid: { stroke: resolvedColor("--border"), width: 1 }, ticks: { show: false } };
    const plot = new uPlot(
      {
        width: element.clientWidth,
        height: 180,
        legend: { show: series.length > 1 },
        cursor: { y: false },
        // One bucket alone gives uPlot no span: an hour around it, rather than years.
        scales: { x: { time: true, ...(times.length === 1 ? { range: [times[0]! - 1800, times[0]! + 1800] } : {}) } },
        axes: [axis, { ...axis, size: 60, values: (_self, ticks) => ticks.map((tick) => (format ? format(tick) : String(tick))) }],
        series: [{}, ...series.map((entry) => ({ label: entry.label, stroke: entry.color, fill: `${entry.color}22`, width: 2, points: { show: times.length < 3, size: 8, fill: entry.color } }))],
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
      <div ref={box} role="img" aria-label={times.length ? `${title}, ${formatTime(new Date(times[0]! * 1000).toISOString())} to ${formatTime(new Date(times.at(-1)! * 1000).toISOString())}` : title} />
    </figure>
  );
}
