import type { ChartConfiguration } from 'chart.js';
import { useId, useMemo, useState, type ReactNode } from 'react';
import type { Currency } from '../../../shared/constants';
import { formatMoney } from '../../../shared/money';
import type { CampaignStatsDto, StatsDayDto } from '../../../shared/schemas/stats';
import { ChartCanvas } from '../../components/chart/ChartCanvas';

/** The site's colours (styles.css): the accent for money in, the muted brown for money back, green for supporters. */
const ACCENT = '#c2410c';
const BACK = '#8a7a6d';
const SUPPORT = '#237a34';
const GRID = '#eedfd0';

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

const scales = (money: Currency | null) => ({
  x: { grid: { display: false }, ticks: { maxRotation: 0, autoSkip: true, autoSkipPadding: 16, maxTicksLimit: 7 } },
  y: {
    beginAtZero: true,
    grid: { color: GRID },
    ticks: money ? { callback: (v: number | string) => formatMoney(Number(v), money) } : { precision: 0 },
  },
});

/**
 * The dashboard's charts (loaded with Chart.js only when the dashboard shows them): money per day,
 * raised over time, supporters over time, each a figure with its caption, the chart (an image
 * named by what it shows) and the same numbers as a table: read by screen readers always, shown
 * on the page with "Show table".
 */
export default function DashboardCharts({ stats }: { stats: CampaignStatsDto }) {
  const { series, currency } = stats;
  const money = (v: number) => formatMoney(v, currency);
  const labels = useMemo(() => series.map((d) => axisDay(d.date)), [series]);
  const period = `the last ${stats.days} days (${tableDay(stats.from)} to ${tableDay(stats.to)}, UTC)`;
  const sum = (pick: (d: StatsDayDto) => number) => series.reduce((n, d) => n + pick(d), 0);

  const perDay = useMemo<ChartConfiguration<'bar'>>(
    () => ({
      type: 'bar',
      data: {
        labels,
        datasets: [
          { label: 'Donated', data: series.map((d) => d.donated), backgroundColor: ACCENT },
          { label: 'Refunded', data: series.map((d) => d.refunded), backgroundColor: BACK },
        ],
      },
      options: {
        scales: scales(currency),
        plugins: { tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${formatMoney(Number(c.raw), currency)}` } } },
      },
    }),
    [labels, series, currency],
  );
  const raised = useMemo<ChartConfiguration<'line'>>(
    () => ({
      type: 'line',
      data: {
        labels,
        datasets: [{ label: 'Raised', data: series.map((d) => d.raised), borderColor: ACCENT, backgroundColor: ACCENT, pointRadius: 0, borderWidth: 2 }],
      },
      options: {
        scales: scales(currency),
        plugins: { legend: { display: false }, tooltip: { callbacks: { label: (c) => `Raised: ${formatMoney(Number(c.raw), currency)}` } } },
      },
    }),
    [labels, series, currency],
  );
  const supporters = useMemo<ChartConfiguration<'line'>>(
    () => ({
      type: 'line',
      data: {
        labels,
        datasets: [
          {
            label: 'Supporters',
            data: series.map((d) => d.supporters),
            borderColor: SUPPORT,
            backgroundColor: SUPPORT,
            pointRadius: 0,
            borderWidth: 2,
            stepped: true,
          },
        ],
      },
      options: { scales: scales(null), plugins: { legend: { display: false } } },
    }),
    [labels, series],
  );

  const last = series.at(-1);
  return (
    <div className="dashboard-charts">
      <ChartFigure
        title="Money per day"
        summary={`Money per day over ${period}: ${money(sum((d) => d.donated))} donated in ${sum((d) => d.gifts)} gifts, ${money(sum((d) => d.refunded))} refunded.`}
        chart={<ChartCanvas config={perDay} label={`Bar chart of money donated and refunded each day over ${period}.`} />}
        columns={['Gifts', 'Donated', 'Refunded', 'Net']}
        rows={series.map((d) => [d.date, [String(d.gifts), money(d.donated), money(d.refunded), money(d.net)]])}
      />
      <ChartFigure
        title="Raised over time"
        summary={`Raised over ${period}: ${money(series[0]?.raised ?? 0)} at the end of the first day, ${money(last?.raised ?? 0)} at the end of the last.`}
        chart={<ChartCanvas config={raised} label={`Line chart of the total raised at the end of each day over ${period}.`} />}
        columns={['Raised']}
        rows={series.map((d) => [d.date, [money(d.raised)]])}
      />
      <ChartFigure
        title="Supporters over time"
        summary={`Confirmed supporters over ${period}: ${sum((d) => d.newSupporters)} new, ${last?.supporters ?? 0} at the end of the last day.`}
        chart={<ChartCanvas config={supporters} label={`Line chart of confirmed supporters at the end of each day over ${period}.`} />}
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
