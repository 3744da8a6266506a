import { useId, useMemo, useState, type ReactNode } from 'react';
import uPlot from 'uplot';
import { formatMoney } from '../../../shared/money';
import type { CampaignStatsDto, StatsDayDto } from '../../../shared/schemas/stats';
import { ChartCanvas, chartFont, fitAxisSize, type ChartOptions } from '../../components/chart/ChartCanvas';

/** The site's colours (styles.css): the accent for money in, the muted brown for money back, green for supporters, the text's brown for the axes. */
const ACCENT = '#c2410c';
const BACK = '#8a7a6d';
const SUPPORT = '#237a34';
const GRID = '#eedfd0';
const INK = '#4a3b2f';

/** A formatter made on first use (a page's first Intl formatter loads the locale's data). */
function lazyFormat(options: Intl.DateTimeFormatOptions): (date: string) => string {
  let format: Intl.DateTimeFormat | undefined;
  return (date) => {
    format ??= new Intl.DateTimeFormat(undefined, { ...options, timeZone: 'UTC' });
    return format.format(new Date(date));
  };
}
/** '27 Nov' for an axis, of a UTC day (YYYY-MM-DD). */
const axisDay = lazyFormat({ day: 'numeric', month: 'short' });
/** '27 Nov 2026' for a table and a label, of a UTC day. */
export const tableDay = lazyFormat({ dateStyle: 'medium' });

/** Steps between the days' ticks: whole days, weeks, months. */
const DAY_STEPS = [1, 2, 3, 5, 7, 14, 30, 61, 91, 182];
/** Steps between the values' ticks: whole numbers only (counts, and money in minor units). */
const WHOLE_STEPS = Array.from({ length: 13 }, (_v, k) => [1, 2, 5].map((m) => m * 10 ** k)).flat();

/**
 * A series' value in the legend: the day's under the pointer, and the last day's (today's) when the
 * pointer is elsewhere, so the legend always says something true.
 */
export function legendValue(format: (v: number) => string): uPlot.Series['value'] {
  return (u, v, seriesIdx) => {
    const shown = v ?? u.data[seriesIdx]?.at(-1);
    return shown === null || shown === undefined ? '–' : format(shown);
  };
}

/**
 * What the three charts share: the days along the bottom (the x values are the days' positions,
 * labelled by their dates, never between two days), the values up the left (money or counts,
 * the axis as wide as its widest label), a grid of the site's colours, and a legend under the
 * plot that shows the day and the values under the pointer (else the last day's).
 */
function chartOptions(labels: string[], value: (v: number) => string, series: uPlot.Series[]): ChartOptions {
  const font = chartFont(12);
  return {
    series: [{ label: 'Day', value: legendValue((i) => labels[i] ?? '') }, ...series],
    scales: { x: { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] } },
    axes: [
      {
        stroke: INK,
        font,
        grid: { show: false },
        ticks: { show: false },
        // one line of labels (uPlot keeps 50 px for an axis otherwise)
        size: 26,
        gap: 6,
        space: 56,
        incrs: DAY_STEPS,
        values: (_u, splits) => splits.map((i) => (Number.isInteger(i) ? (labels[i] ?? '') : '')),
      },
      {
        stroke: INK,
        font,
        grid: { stroke: GRID, width: 1 },
        ticks: { show: false },
        incrs: WHOLE_STEPS,
        values: (_u, splits) => splits.map(value),
        size: fitAxisSize,
      },
    ],
    legend: { live: true },
    cursor: { points: { show: false }, drag: { x: false, y: false } },
  };
}

/** Series of whole numbers from 0 up (a count, or money in minor units): no fractional ticks. */
const wholeScale = (options: ChartOptions): ChartOptions => ({
  ...options,
  scales: { ...options.scales, y: { range: (_u, _min, max) => [0, Math.max(1, Math.ceil(max * 1.1))] } },
});

/**
 * The dashboard's charts (loaded with uPlot only when the dashboard shows them): money per day,
 * raised over time, supporters over time, each a figure with its caption, the chart (an image
 * named by what it shows) and the same numbers as a table: read by screen readers always, shown
 * on the page with "Show table".
 */
export default function DashboardCharts({ stats }: { stats: CampaignStatsDto }) {
  const { series, currency } = stats;
  const money = (v: number) => formatMoney(v, currency);
  const labels = useMemo(() => series.map((d) => axisDay(d.date)), [series]);
  const days = useMemo(() => series.map((_d, i) => i), [series]);
  const period = `the last ${stats.days} days (${tableDay(stats.from)} to ${tableDay(stats.to)}, UTC)`;
  const sum = (pick: (d: StatsDayDto) => number) => series.reduce((n, d) => n + pick(d), 0);

  const perDay = useMemo(() => {
    const toMoney = (v: number) => formatMoney(v, currency);
    const bars = (align: -1 | 1) => uPlot.paths.bars?.({ align, size: [0.42, 40], gap: 1 });
    const options = wholeScale(
      chartOptions(labels, toMoney, [
        { label: 'Donated', fill: ACCENT, stroke: ACCENT, width: 0, paths: bars(-1), points: { show: false }, value: legendValue(toMoney) },
        { label: 'Refunded', fill: BACK, stroke: BACK, width: 0, paths: bars(1), points: { show: false }, value: legendValue(toMoney) },
      ]),
    );
    const data: uPlot.AlignedData = [days, series.map((d) => d.donated), series.map((d) => d.refunded)];
    return { options, data };
  }, [labels, days, series, currency]);
  const raised = useMemo(() => {
    const toMoney = (v: number) => formatMoney(v, currency);
    const options = wholeScale(
      chartOptions(labels, toMoney, [{ label: 'Raised', stroke: ACCENT, width: 2, points: { show: false }, value: legendValue(toMoney) }]),
    );
    const data: uPlot.AlignedData = [days, series.map((d) => d.raised)];
    return { options, data };
  }, [labels, days, series, currency]);
  const supporters = useMemo(() => {
    const count = (v: number) => String(v);
    const options = wholeScale(
      chartOptions(labels, count, [
        { label: 'Supporters', stroke: SUPPORT, width: 2, paths: uPlot.paths.stepped?.({ align: 1 }), points: { show: false }, value: legendValue(String) },
      ]),
    );
    const data: uPlot.AlignedData = [days, series.map((d) => d.supporters)];
    return { options, data };
  }, [labels, days, series]);

  const last = series.at(-1);
  return (
    <div className="dashboard-charts">
      <ChartFigure
        title="Money per day"
        summary={`Money per day over ${period}: ${money(sum((d) => d.donated))} donated in ${sum((d) => d.gifts)} gifts, ${money(sum((d) => d.refunded))} refunded.`}
        chart={<ChartCanvas {...perDay} label={`Bar chart of money donated and refunded each day over ${period}.`} />}
        columns={['Gifts', 'Donated', 'Refunded', 'Net']}
        rows={series.map((d) => [d.date, [String(d.gifts), money(d.donated), money(d.refunded), money(d.net)]])}
      />
      <ChartFigure
        title="Raised over time"
        summary={`Raised over ${period}: ${money(series[0]?.raised ?? 0)} at the end of the first day, ${money(last?.raised ?? 0)} at the end of the last.`}
        chart={<ChartCanvas {...raised} label={`Line chart of the total raised at the end of each day over ${period}.`} />}
        columns={['Raised']}
        rows={series.map((d) => [d.date, [money(d.raised)]])}
      />
      <ChartFigure
        title="Supporters over time"
        summary={`Confirmed supporters over ${period}: ${sum((d) => d.newSupporters)} new, ${last?.supporters ?? 0} at the end of the last day.`}
        chart={<ChartCanvas {...supporters} label={`Line chart of confirmed supporters at the end of each day over ${period}.`} />}
        columns={['New supporters', 'Supporters']}
        rows={series.map((d) => [d.date, [String(d.newSupporters), String(d.supporters)]])}
      />
    </div>
  );
}

/**
 * A chart with its title, a sentence of what it shows, and its table: visually hidden (but read)
 * until "Show table" opens it. Rows are [UTC day, cells].
 */
function ChartFigure({
  title,
  summary,
  chart,
  columns,
  rows,
}: {
  title: string;
  summary: string;
  chart: ReactNode;
  columns: string[];
  rows: [string, string[]][];
}) {
  const [open, setOpen] = useState(false);
  const ids = useId();
  const tableId = `${ids}-table`;
  return (
    <figure className="card chart-figure" aria-labelledby={`${ids}-title`}>
      <div className="section-head">
        <h3 id={`${ids}-title`}>{title}</h3>
        <button type="button" className="button button-secondary button-small" aria-expanded={open} aria-controls={tableId} onClick={() => setOpen(!open)}>
          {open ? 'Hide table' : 'Show table'}
        </button>
      </div>
      <p className="muted chart-summary">{summary}</p>
      {chart}
      {/* shown, a table wider than a phone scrolls in its box, which the keyboard must reach (tabIndex) */}
      <section id={tableId} className={open ? 'table-wrap chart-table' : 'visually-hidden'} tabIndex={open ? 0 : undefined} aria-label={`${title}, as a table`}>
        <table className="table">
          <caption className="visually-hidden">{title} (UTC days)</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              {columns.map((c) => (
                <th key={c} scope="col" className="num">
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map(([date, cells]) => (
              <tr key={date}>
                <th scope="row">
                  <time dateTime={date}>{tableDay(date)}</time>
                </th>
                {cells.map((cell, i) => (
                  <td key={columns[i]} className="num">
                    {cell}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </figure>
  );
}
