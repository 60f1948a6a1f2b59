export { estimateMos, measuredInput, rFactor, rToMos, delayImpairment, lossImpairment, qualityLevel, LEVEL_THRESHOLDS, R_DEFAULT, OPUS_BPL, OPUS_IE, CODEC_DELAY_MS, type QualityLevel, type EModelInput } from './emodel.js';
export { readStats, type StatsReading } from './stats.js';
export { sampleBetween, callQuality, UNKNOWN_QUALITY, type CallQuality, type QualitySample } from './sample.js';
export { QualitySampler, type QualitySamplerOptions } from './sampler.js';
export { summarizeQuality, percentile, type QualityReport } from './report.js';
export { PerceivedLatencyMeter, PERCEIVED_LATENCY_DEFAULTS, type PerceivedLatencyOptions } from './perceived.js';
export { QualityTracker, MAX_QUALITY_SAMPLES, type QualityTrackerDeps } from './tracker.js';
export type { QualityOptions } from './options.js';
