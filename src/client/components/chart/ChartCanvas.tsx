import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** What a chart shows, without its size (the box gives it). */
export type ChartOptions = Omit<uPlot.Options, 'width' | 'height'>;

/** The plot's height with its axes, in CSS pixels; its legend goes under it, as many lines as the width needs. */
export const PLOT_HEIGHT = 200;

/**
 * A uPlot chart, made when mounted and again when `options` or `data` change, destroyed when
 * unmounted. uPlot (about 50 kB, no dependencies) draws a day-by-day chart in a millisecond or two,
 * where Chart.js took a phone's main thread for several tenths of a second (issue #33's dashboard
 * measured TBT 267-342 ms). It is as wide as its box (`.chart-box`: never wider than the screen,
 * redrawn when the box's width changes) and PLOT_HEIGHT tall, with its legend (the day and the
 * values under the pointer) below. For assistive technology the box is one image named by what it
 * shows (`label`); the numbers themselves are in the table each chart comes with.
 */
export function ChartCanvas({ options, data, label }: { options: ChartOptions; data: uPlot.AlignedData; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const chart = new uPlot({ ...options, width: el.clientWidth, height: PLOT_HEIGHT }, data, el);
    const resized = new ResizeObserver(() => {
      if (chart.width !== el.clientWidth) chart.setSize({ width: el.clientWidth, height: PLOT_HEIGHT });
    });
    resized.observe(el);
    return () => {
      resized.disconnect();
      chart.destroy();
    };
  }, [options, data]);
  return <div ref={box} className="chart-box" role="img" aria-label={label} />;
}

/** The page's font at a size, for the axes (a canvas does not inherit it). */
export function chartFont(px: number): string {
  return `${px}px ${getComputedStyle(document.body).fontFamily || 'sans-serif'}`;
}

/**
 * An axis as wide as its widest label (uPlot's default is a fixed 50 px, too narrow for
 * "€12,345.00"): measured on the chart's own canvas with the axis's font.
 */
export function fitAxisSize(self: uPlot, values: string[] | null, axisIdx: number): number {
  const axis = self.axes[axisIdx];
  const gap = (axis.gap ?? 5) + (axis.ticks?.size ?? 10) + 6;
  if (!values?.length) return gap;
  // once the chart is made, uPlot keeps an axis's font as [canvas font, size]
  self.ctx.font = (axis.font as unknown as [string])[0];
  const widest = Math.max(...values.map((v) => self.ctx.measureText(v).width));
  return Math.ceil(widest / devicePixelRatio + gap);
}
