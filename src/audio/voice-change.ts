/**
 * The voice-change chain on the 16 kHz working signal:
 *
 *   x ──► F0 analysis ──► plan (α, pitch ratio, contour)
 *   x ──► PitchShifter (WSOLA + resampling) ──► excitation ─┐
 *   x ──► LpcResynthesizer (McAdams-warped envelope of x) ◄──┘ ──► output
 *
 * Everything after the analysis is a pull stream: the caller reads output
 * blocks and only a few frames of state exist at any time.
 */
import { LpcResynthesizer } from './lpc-resynth.js';
import { medianF0, PITCH_HOP, trackPitch } from './pitch.js';
import type { SequentialSource, VoiceParams } from './types.js';
import { needsPitchAnalysis, planVoice, type VoicePlan } from './voice-map.js';
import { PitchShifter, type RatioCurve } from './wsola.js';

/** Analysing at most this many frames is plenty for a stable median F0 (5 minutes' worth). */
const MEDIAN_FRAMES = 30_000;
/** Per-frame contour factors are kept within these bounds (about ±6 semitones). */
const CONTOUR_LIMITS = [0.7, 1.45] as const;

/** Fills frames skipped by a strided analysis: the mean of two voiced neighbours, else unvoiced. */
function fillSkippedFrames(track: Float32Array, stride: number): void {
  for (let k = 0; k < track.length; k++) {
    if (k % stride === 0) continue;
    const left = track[k - (k % stride)]!;
    const right = track[k - (k % stride) + stride] ?? 0;
    track[k] = left > 0 && right > 0 ? left + ((right - left) * (k % stride)) / stride : 0;
  }
}

/** Median filter of width 5 over voiced frames: removes isolated octave jumps. */
function smoothVoiced(track: Float32Array): Float32Array {
  const out = new Float32Array(track.length);
  const win: number[] = [];
  for (let k = 0; k < track.length; k++) {
    if (!(track[k]! > 0)) continue;
    win.length = 0;
    for (let j = k - 2; j <= k + 2; j++) {
      const v = track[j];
      if (v !== undefined && v > 0) win.push(v);
    }
    win.sort((a, b) => a - b);
    out[k] = win[win.length >> 1]!;
  }
  return out;
}

/**
 * Per-frame pitch ratio that scales F0 deviations from the median by the
 * plan's exponent: f0' = median·ratio·(f0/median)^κ, i.e. a per-frame ratio of
 * ratio·(f0/median)^(κ−1). Unvoiced frames interpolate between their voiced
 * neighbours, and a 50 ms moving average keeps the rate changes gentle.
 */
export function contourRatios(track: Float32Array, median: number, plan: VoicePlan): RatioCurve {
  const f0 = smoothVoiced(track);
  const n = f0.length;
  const factor = new Float32Array(n);
  const voiced: number[] = [];
  for (let k = 0; k < n; k++) {
    if (f0[k]! > 0) {
      const f = (f0[k]! / median) ** (plan.contourExponent - 1);
      factor[k] = Math.min(CONTOUR_LIMITS[1], Math.max(CONTOUR_LIMITS[0], f));
      voiced.push(k);
    }
  }
  if (voiced.length === 0) factor.fill(1);
  else {
    let prev = -1;
    for (const k of [...voiced, n]) {
      const left = prev >= 0 ? factor[prev]! : factor[voiced[0]!]!;
      const right = k < n ? factor[k]! : left;
      for (let j = prev + 1; j < k; j++) {
        const t = prev >= 0 && k < n ? (j - prev) / (k - prev) : 0;
        factor[j] = prev >= 0 ? left + (right - left) * t : right;
      }
      prev = k;
    }
  }
  const values = new Float32Array(n);
  const half = 2;
  for (let k = 0; k < n; k++) {
    let sum = 0;
    let cnt = 0;
    for (let j = Math.max(0, k - half); j <= Math.min(n - 1, k + half); j++) {
      sum += factor[j]!;
      cnt++;
    }
    values[k] = plan.pitchRatio * (sum / cnt);
  }
  return { values, hop: PITCH_HOP };
}

export interface VoiceChanger {
  plan: VoicePlan;
  /** Reads the next output samples (same rate and total length as the input). */
  source: SequentialSource;
  /** The final stage, exposed for diagnostics (e.g. frames whose pole warp fell back). */
  resynthesizer: LpcResynthesizer;
}

/** Analyses `x` as far as the request needs and sets up the streaming chain. */
export function createVoiceChanger(x: Float32Array, params: VoiceParams): VoiceChanger {
  let track: Float32Array | null = null;
  let median: number | null = null;
  if (needsPitchAnalysis(params)) {
    const frames = Math.ceil(x.length / PITCH_HOP);
    // The contour is analysed every 20 ms (it is smoothed over 50 ms anyway); for the
    // median alone a sparser subsample of a long file will do.
    const needContour = planVoice(params, null).contourExponent !== 1;
    const stride = needContour ? 2 : Math.max(2, Math.floor(frames / MEDIAN_FRAMES));
    track = trackPitch(x, { stride });
    if (needContour) fillSkippedFrames(track, stride);
    median = medianF0(track);
  }
  const plan = planVoice(params, median);
  let excitation: SequentialSource | null = null;
  if (plan.contourExponent !== 1 && track && median) {
    excitation = new PitchShifter(x, contourRatios(track, median, plan));
  } else if (plan.pitchRatio !== 1) {
    excitation = new PitchShifter(x, plan.pitchRatio);
  }
  const resynthesizer = new LpcResynthesizer(x, plan.alpha, excitation);
  return { plan, source: resynthesizer, resynthesizer };
}
