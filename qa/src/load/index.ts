/**
 * `kb-voice-qa/artillery`: voice calls as Artillery scenarios. `nodeCall(script)` for a `function`
 * step (Node callers over @roamhq/wrtc: dozens per machine), `browserCall(script)` for the
 * Playwright engine (the harness page and the same `Call` as the fixture). Metrics `voice.*`;
 * `kb-voice-qa report out.json` turns the run's JSON into a page. See docs/qa.md "Load tests".
 */
export { browserCall, loadSettings, LOAD_ENV, nodeCall, type ArtilleryContext, type ArtilleryEvents, type BrowserScenario, type LoadSettings, type NodeScenario } from './artillery.js';
export { LoadCallError, NodeCall, NODE_TURN_TIMEOUT_MS, type NodeCallTarget } from './node-call.js';
export type { LineReport } from './node-line.js';
export { METRICS, phaseMetricName, turnSamples, type MetricSample } from './metrics.js';
export { CPU_SAMPLE_INTERVAL_MS, GeneratorCpu, SATURATED_CPU_PCT } from './generator-cpu.js';
export type { LoadCallRecord } from './call-log.js';
