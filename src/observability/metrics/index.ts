export { Metrics, stateLabel, type GaugeSources } from './metrics.js';
export { CallMetrics, type CallMetricsOptions, type EndedCall, type CallEnding } from './call-metrics.js';
export { BoundedLabel, OTHER } from './bounded-label.js';
export { METRIC } from './metric-names.js';
