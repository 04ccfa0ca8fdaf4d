/**
 * A bar chart of one or two series over time buckets, drawn as SVG (no charting library: the
 * console stays small). Geometry is in attributes, never inline styles (the CSP has no
 * 'unsafe-inline'); colours come from the stylesheet's classes.
 */
export interface Series {
  name: string;
  className: string;
  values: number[];
}

export function BarChart({ label, buckets, series, unit }: { label: string; buckets: string[]; series: Series[]; unit: string }) {
  const width = 640;
  const height = 160;
  const max = Math.max(1, ...series.flatMap((s) => s.values));
  const slot = buckets.length ? width / buckets.length : width;
  const barWidth = Math.max(1, (slot - 2) / series.length);
  const summary = `${label}: ${series.map((s) => `${s.name} ${s.values.reduce((a, b) => a + b, 0).toLocaleString('en')}`).join(', ')} (highest ${max.toLocaleString('en')} ${unit})`;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height + 18}`} role="img" aria-label={summary}>
        <title>{summary}</title>
        <line x1="0" y1={height} x2={width} y2={height} class="axis" />
        {buckets.map((b, i) =>
          series.map((s, j) => {
            const v = s.values[i] ?? 0;
            const h = (v / max) * (height - 4);
            return <rect key={`${b}-${s.name}`} class={s.className} x={i * slot + 1 + j * barWidth} y={height - h} width={barWidth} height={h} />;
          }),
        )}
        <text x="0" y={height + 14} class="tick">
          {buckets[0] ?? ''}
        </text>
        <text x={width} y={height + 14} class="tick" text-anchor="end">
          {buckets[buckets.length - 1] ?? ''}
        </text>
        <text x={width} y="10" class="tick" text-anchor="end">
          {`max ${max.toLocaleString('en')} ${unit}`}
        </text>
      </svg>
      <figcaption>
        {label}
        {series.length > 1 &&
          series.map((s) => (
            <span key={s.name} class="legend">
              <span class={`swatch ${s.className}`} aria-hidden="true" />
              {s.name}
            </span>
          ))}
      </figcaption>
    </figure>
  );
}
