/**
 * A Vega-Lite chart in a part (`application/vnd.vegalite.v5+json`, as the Table Expert answers):
 * the drawing code is imported on first use, as its own chunk.
 */
import { useEffect, useRef, useState } from 'preact/hooks';

/** Vega-Lite's media types (`application/vnd.vegalite.v5+json`, any version). */
export const isVegaLite = (mediaType: string | undefined) => /^application\/vnd\.vegalite\.v\d+\+json$/.test(mediaType ?? '');

export function VegaLiteChart({ spec, label, showSpec = true }: { spec: unknown; label: string; showSpec?: boolean }) {
  const drawing = useRef<HTMLDivElement>(null);
  const [problem, setProblem] = useState<string>();
  const [drawn, setDrawn] = useState(false);
  const title = typeof spec === 'object' && spec !== null && typeof (spec as { title?: unknown }).title === 'string' ? (spec as { title: string }).title : undefined;
  const description = title ? `${label}: ${title}` : label;
  useEffect(() => {
    let gone = false;
    let release: (() => void) | undefined;
    setProblem(undefined);
    import('./vega-render.js')
      .then((m) => m.renderVegaLite(drawing.current!, spec, description))
      .then(
        (finalize) => {
          if (gone) finalize();
          else {
            release = finalize;
            setDrawn(true);
          }
        },
        (e: unknown) => gone || setProblem(`The chart could not be drawn: ${e instanceof Error ? e.message : String(e)}`),
      );
    return () => {
      gone = true;
      release?.();
    };
    // By content: a page that builds its spec on each render does not redraw the same chart.
  }, [JSON.stringify(spec), description]);
  return (
    <figure class="vega-chart" aria-busy={!drawn && !problem}>
      <div ref={drawing} class="vega-drawing" />
      {problem && <p class="problem">{problem}</p>}
      <figcaption class="muted">
        {description}{' '}
        {showSpec && (
          <details>
            <summary>Chart spec (Vega-Lite)</summary>
            <pre class="part-data">{JSON.stringify(spec, null, 2)}</pre>
          </details>
        )}
      </figcaption>
    </figure>
  );
}
