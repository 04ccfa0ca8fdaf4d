/**
 * Vega-Lite specs drawn with Vega, in a chunk of its own (loaded on the first chart: the console's
 * first page stays small). The console's CSP has no 'unsafe-eval', so Vega runs with its AST
 * interpreter (`ast: true` + vega-interpreter) instead of compiling expressions to functions. A
 * spec comes from an agent: its data must be inline, as the Table Expert's is; the loader refuses
 * every URL, so a chart never makes the browser fetch anything.
 *
 * Vega is assembled from its packages with only the transforms Vega-Lite's compiler emits (the
 * dataflow and encoding ones, geo for maps, regression for `regression`/`loess`), not the `vega`
 * entry, which registers every transform (force, hierarchy, voronoi, word cloud, label, crossfilter)
 * as a side effect: ≈29 KB gzipped less. vite.config.ts points vega-lite's own `vega` import, four
 * helpers of vega-util, at vega-util for the same reason.
 */
import { transforms } from 'vega-dataflow';
import * as encode from 'vega-encode';
import * as geo from 'vega-geo';
import { expressionInterpreter } from 'vega-interpreter';
import { compile, type TopLevelSpec } from 'vega-lite';
import { loader } from 'vega-loader';
import { parse } from 'vega-parser';
import * as regression from 'vega-regression';
import * as dataflowTransforms from 'vega-transforms';
import { View } from 'vega-view';
import * as viewTransforms from 'vega-view-transforms';

Object.assign(transforms, dataflowTransforms, viewTransforms, encode, geo, regression);

const noFetching = loader();
noFetching.load = async (uri: string) => {
  throw new Error(`the chart asks to load ${uri}; only inline data is drawn`);
};

/** Draws `spec` as SVG into `container`; the returned function releases the view. */
export async function renderVegaLite(container: HTMLElement, spec: unknown, description: string): Promise<() => void> {
  const vegaSpec = compile({ description, ...(spec as TopLevelSpec) } as TopLevelSpec).spec;
  const view = new View(parse(vegaSpec, undefined, { ast: true }), {
    expr: expressionInterpreter,
    loader: noFetching,
    renderer: 'svg',
    container,
    hover: true,
  });
  await view.runAsync();
  return () => view.finalize();
}
