declare module 'parse-prometheus-text-format' {
  /** Families of a Prometheus text exposition, as the package returns them. */
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
