/**
 * Fundamental-frequency (F0) tracking, YIN-style (de Cheveigné & Kawahara
 * 2002), used to choose the pitch ratio (median F0 of the speaker) and to
 * reshape the F0 contour for the `emotion` field.
 */

/** Frames are 10 ms apart at 16 kHz, like the LPC stage. */
export const PITCH_HOP = 160;
const RATE = 16000;
/** Analysis runs on a 2× decimated copy (8 kHz): plenty for 60–400 Hz and 4× cheaper. */
const DEC_RATE = RATE / 2;
/** YIN integration window (25 ms at 8 kHz, as in the YIN paper). */
const W = 200;
/** Threshold on the cumulative-mean-normalised difference below which a frame is voiced. */
const YIN_THRESHOLD = 0.15;

export interface PitchOptions {
  minHz?: number;
  maxHz?: number;
  /** Analyse only every `stride`-th frame (others stay 0): enough for a median on long files. */
  stride?: number;
}

/** 7-tap half-band lowpass (taps −1/32, 0, 9/32, 1/2, 9/32, 0, −1/32) before keeping every 2nd sample. */
function decimate(x: Float32Array, start: number, out: Float64Array): void {
  const at = (idx: number): number => (idx >= 0 && idx < x.length ? x[idx]! : 0);
  const inside = start - 3 >= 0 && start + 2 * out.length + 3 <= x.length;
  for (let i = 0; i < out.length; i++) {
    const c = start + 2 * i;
    out[i] = inside
      ? 0.5 * x[c]! + 0.28125 * (x[c - 1]! + x[c + 1]!) - 0.03125 * (x[c - 3]! + x[c + 3]!)
      : 0.5 * at(c) + 0.28125 * (at(c - 1) + at(c + 1)) - 0.03125 * (at(c - 3) + at(c + 3));
  }
}

function percentile(values: Float32Array, q: number): number {
  if (values.length === 0) return 0;
  const sorted = Float32Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/**
 * F0 in Hz per 10 ms frame (frame k centred on sample k·160); 0 where the
 * frame is unvoiced, too quiet, or not analysed.
 */
export function trackPitch(x: Float32Array, options: PitchOptions = {}): Float32Array {
  const minHz = options.minHz ?? 60;
  const maxHz = options.maxHz ?? 400;
  const stride = Math.max(1, Math.floor(options.stride ?? 1));
  const frames = Math.ceil(x.length / PITCH_HOP);
  const f0 = new Float32Array(frames);
  const tauMin = Math.max(2, Math.floor(DEC_RATE / maxHz));
  const tauMax = Math.ceil(DEC_RATE / minHz);
  const span = W + tauMax + 1;

  // Loudness gate relative to the recording itself: 30 dB under its loud frames.
  const rms = new Float32Array(Math.ceil(frames / stride));
  for (let k = 0, j = 0; k < frames; k += stride, j++) {
    let e = 0;
    const s0 = Math.max(0, k * PITCH_HOP - PITCH_HOP);
    const s1 = Math.min(x.length, k * PITCH_HOP + PITCH_HOP);
    for (let i = s0; i < s1; i++) e += x[i]! * x[i]!;
    rms[j] = Math.sqrt(e / Math.max(1, s1 - s0));
  }
  const gate = Math.max(1e-4, 0.0316 * percentile(rms, 0.95));

  const y = new Float64Array(span);
  const norm = new Float64Array(tauMax + 2);
  for (let k = 0, j = 0; k < frames; k += stride, j++) {
    if (rms[j]! < gate) continue;
    // The window is centred on the frame centre.
    decimate(x, k * PITCH_HOP - span, y);
    // Difference function d(τ) = Σ (y[i] − y[i+τ])² = E₀ + E_τ − 2·r(τ), its
    // cumulative-mean normalisation, and the first dip under the threshold —
    // computed lag by lag so the search stops one lag past the dip's minimum.
    let e0 = 0;
    for (let i = 0; i < W; i++) e0 += y[i]! * y[i]!;
    let et = e0;
    let running = 0;
    let found = -1;
    for (let tau = 1; tau <= tauMax + 1; tau++) {
      et += y[tau + W - 1]! * y[tau + W - 1]! - y[tau - 1]! * y[tau - 1]!;
      let r = 0;
      for (let i = 0; i < W; i++) r += y[i]! * y[i + tau]!;
      const dt = Math.max(0, e0 + et - 2 * r);
      running += dt;
      norm[tau] = (dt * tau) / Math.max(running, 1e-20);
      const prev = tau - 1;
      if (prev >= tauMin && norm[prev]! < YIN_THRESHOLD && norm[tau]! >= norm[prev]!) {
        found = prev;
        break;
      }
    }
    if (found < 0) continue;
    // Parabolic interpolation for sub-sample lag precision.
    const a = norm[found - 1]!;
    const b = norm[found]!;
    const c = norm[found + 1]!;
    const den = a - 2 * b + c;
    const shift = den > 0 ? (0.5 * (a - c)) / den : 0;
    const hz = DEC_RATE / (found + Math.max(-0.5, Math.min(0.5, shift)));
    if (hz >= minHz && hz <= maxHz) f0[k] = hz;
  }
  return f0;
}

/** Median of the voiced (non-zero) frames, or null with fewer than 10 of them. */
export function medianF0(track: Float32Array): number | null {
  const voiced = track.filter((v) => v > 0);
  if (voiced.length < 10) return null;
  voiced.sort();
  const mid = voiced.length >> 1;
  return voiced.length % 2 ? voiced[mid]! : (voiced[mid - 1]! + voiced[mid]!) / 2;
}
