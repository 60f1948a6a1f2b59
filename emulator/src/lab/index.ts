/**
 * kb-voice-emulator/lab — a user-space network lab: UDP paths with loss (random and bursty),
 * delay, jitter, reordering, a bandwidth cap, outages and path switches, named profiles of real
 * networks, and a media path that puts the emulator's realtime calls behind them (docs/quality.md);
 * and generated room noise at a chosen SNR (docs/real-world.md "Noise, echo and barge-in").
 */
export { NetworkLab, type NetworkLabOptions, type LabClock, type LabCounters } from './forwarder.js';
export { LinkImpairment, checkConditions, type LinkConditions, type LinkCounters } from './link.js';
export { NETWORK_PROFILES, PROFILE_NAMES, resolveProfile, type NetworkProfile, type NetworkProfileName } from './profiles.js';
export { seededRandom, normal, type Random } from './random.js';
export { LabRoute, routeRealtime, stripCandidates, hostCandidate, replaceCandidate, type MediaPath, type LabRouteOptions } from './route.js';
export {
  generateNoise, mixAtSnr, noiseAtSnr, activeLevelDbfs, NOISE_NAMES, NOISE_FIXTURES, NOISE_SAMPLE_RATE, NOISE_REFERENCE_DBFS, MAX_NOISE_MS,
  type NoiseName, type NoiseOptions,
} from './noise.js';
