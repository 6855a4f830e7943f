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

/** A point of a chart: the index into `times` and the series drawn there. */
export interface PickedPoint {
  index: number;
  series: number;
}

interface TimeChartProps {
  title: string;
  times: number[];
  series: Series[];
  format?: (value: number) => string;
  /** Called with the point clicked: the bucket under the cursor and, of the series with a value there, the one drawn nearest. */
  onPick?: (point: PickedPoint) => void;
}

/** The series whose value at `index` is drawn nearest to `top` (pixels in the plot); none when every value there is empty or zero. */
function nearestSeries(plot: uPlot, series: Series[], index: number, top: number): number | undefined {
  let nearest: { series: number; distance: number } | undefined;
  series.forEach((entry, position) => {
    const value = entry.values[index];
    if (!value) return;
    const distance = Math.abs(plot.valToPos(value, "y") - top);
    if (!nearest || distance < nearest.distance) nearest = { series: position, distance };
  });
  return nearest?.series;
}

/** A time series drawn by uPlot, resized with its box; `times` are epoch seconds. */
export function TimeChart({ title, times, series, format, onPick }: TimeChartProps) {
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
    // Read from the click itself: uPlot's cursor may not have caught up with a pointer that just arrived.
    const pick = (event: MouseEvent) => {
      const index = plot.posToIdx(event.offsetX);
      const picked = nearestSeries(plot, series, index, event.offsetY);
      if (picked !== undefined) onPick?.({ index, series: picked });
    };
    if (onPick) {
      plot.over.style.cursor = "pointer";
      plot.over.addEventListener("click", pick);
    }
    return () => {
      resized.disconnect();
      plot.destroy();
    };
  }, [times, series, onPick]);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={box} role="img" aria-label={times.length ? `${title}, ${formatTime(new Date(times[0]! * 1000).toISOString())} to ${formatTime(new Date(times.at(-1)! * 1000).toISOString())}` : title} />
    </figure>
  );
}
