import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartConfiguration,
  type ChartType,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js';
import { useEffect, useRef } from 'react';

// Only what the dashboard draws (bars and lines on a category axis), so the rest of Chart.js stays out of the bundle.
Chart.register(BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, Tooltip, Legend);
Chart.defaults.font.family = getComputedStyle(document.body).fontFamily || Chart.defaults.font.family;
Chart.defaults.color = '#4a3b2f';
// nothing moves for a person who asked for less motion; the others get a short draw
Chart.defaults.animation = window.matchMedia('(prefers-reduced-motion: reduce)').matches ? false : { duration: 300 };

/**
 * A Chart.js chart on a canvas, made when mounted and again when `config` changes, destroyed when
 * unmounted. The canvas is an image for assistive technology (`label` says what it shows); the
 * numbers themselves are in the table each chart comes with. It fills its box (`.chart-box`), whose
 * height the stylesheet sets, so it never makes the page wider than the screen.
 */
export function ChartCanvas<T extends ChartType>({ config, label }: { config: ChartConfiguration<T>; label: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, {
      ...config,
      options: { responsive: true, maintainAspectRatio: false, ...config.options },
    } as ChartConfiguration<T>);
    return () => chart.destroy();
  }, [config]);
  return (
    <div className="chart-box">
      <canvas ref={canvas} role="img" aria-label={label} />
    </div>
  );
}
