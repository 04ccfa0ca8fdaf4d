/**
 * The Vega packages the chart chunk imports one by one (vega-render.ts) ship no type declarations;
 * only what is used is declared, as loosely as the packages themselves are typed in `vega`.
 */
declare module 'vega-dataflow' {
  export const transforms: Record<string, unknown>;
}
declare module 'vega-transforms';
declare module 'vega-view-transforms';
declare module 'vega-encode';
declare module 'vega-geo';
declare module 'vega-regression';
declare module 'vega-parser' {
  import type { Runtime, Spec } from 'vega';
  export function parse(spec: Spec, config?: object, options?: { ast?: boolean }): Runtime;
}
declare module 'vega-view' {
  export { View } from 'vega';
}
declare module 'vega-loader' {
  export { loader } from 'vega';
}
