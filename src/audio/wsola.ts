/**
 * Pitch shifting that keeps the length exactly: WSOLA time-stretch by the
 * ratio r, then reading the stretched signal r times faster (band-limited
 * resampling). Stretching by r and playing back r× faster leaves the duration
 * unchanged and multiplies every frequency, F0 included, by r.
 *
 * Both halves run as one stream with bounded memory: WSOLA frames are added to
 * a small ring as the reader needs them. The ratio may vary over time (the
 * emotion contour); the map from output time to stretched time is the
 * piecewise-linear curve through the WSOLA frame centres, so stretching and
 * reading always agree and the output stays aligned with the input.
 */
import { SincTable } from './sinc.js';
import type { SequentialSource } from './types.js';

/** WSOLA frame: 32 ms, Hann, 50 % overlap in the stretched signal. */
const N = 512;
const HS = N / 2;
/** Search ±8 ms for the best-aligned segment: half the period of a 62 Hz voice. */
const TOL = 128;
/** Frame k is centred at TAU0 + k·HS in the stretched signal; starting at −2 frames gives full overlap at t = 0. */
const TAU0 = -2 * HS;
const ZERO_CROSSINGS = 8;
const RING = 1 << 14;
const T_RING = 256;

/** Pitch ratio as a constant or as one value per `hop` input samples. */
export interface RatioCurve {
  values: Float32Array;
  hop: number;
}

export class PitchShifter implements SequentialSource {
  private readonly hann = new Float64Array(N);
  private readonly seg = new Float64Array(N + 2 * TOL);
  private readonly nat = new Float64Array(N - HS);
  /** Stretched signal; sBuf[i] is stretched time sBase + i. */
  private readonly sBuf = new Float64Array(RING);
  private sBase = TAU0 - N / 2;
  /** Nominal input-time centres of planned frames, indexed by k mod T_RING. */
  private readonly tc = new Float64Array(T_RING);
  private planned = 0;
  private synthesized = 0;
  private prevStart = 0;
  /** Mapping segment: output n lies between centres of frames seg and seg+1. */
  private segIdx = 0;
  private segStart = 0;
  private segEnd = Number.NEGATIVE_INFINITY;
  private segTau = 0;
  private segSlope = 1;
  private n = 0;
  private readonly table: SincTable;
  private readonly fc: number;
  private readonly width: number;

  constructor(
    private readonly x: Float32Array,
    private readonly ratio: number | RatioCurve,
  ) {
    for (let i = 0; i < N; i++) this.hann[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / N);
    let maxRatio = typeof ratio === 'number' ? ratio : 0;
    if (typeof ratio !== 'number') for (const r of ratio.values) maxRatio = Math.max(maxRatio, r);
    // Reading faster than 1 sample per sample folds the top band down; cut it first.
    this.fc = 0.95 * Math.min(1, 1 / maxRatio);
    this.width = ZERO_CROSSINGS / this.fc;
    this.table = new SincTable(ZERO_CROSSINGS);
    this.tc[0] = TAU0 / this.ratioAt(0);
    this.planned = 1;
  }

  private ratioAt(t: number): number {
    const r = this.ratio;
    if (typeof r === 'number') return r;
    const i = Math.min(Math.max(Math.round(t / r.hop), 0), r.values.length - 1);
    return r.values[i]!;
  }

  private centre(k: number): number {
    while (this.planned <= k) {
      const prev = this.tc[(this.planned - 1) % T_RING]!;
      this.tc[this.planned % T_RING] = prev + HS / this.ratioAt(prev);
      this.planned++;
    }
    return this.tc[k % T_RING]!;
  }

  read(dst: Float32Array): void {
    const { table, fc, width, sBuf } = this;
    const tab = table.table;
    const fcRes = fc * table.resolution;
    for (let i = 0; i < dst.length; i++) {
      const n = this.n++;
      if (n >= this.segEnd) this.advanceSegment(n);
      const c = this.segTau + (n - this.segStart) * this.segSlope;
      const lo = Math.ceil(c - width);
      const hi = Math.floor(c + width);
      // Frame k is final in the stretched signal below its centre (the next one overlaps above).
      while (TAU0 + (this.synthesized - 1) * HS <= hi) this.synthesizeNext(lo);
      const base = this.sBase;
      let acc = 0;
      for (let j = lo; j <= hi; j++) {
        const u = Math.abs(c - j) * fcRes;
        const iu = u | 0;
        const h0 = tab[iu]!;
        acc += sBuf[j - base]! * (h0 + (u - iu) * (tab[iu + 1]! - h0));
      }
      dst[i] = acc * fc;
    }
  }

  /** Moves the output→stretched-time map to the segment between the frame centres around `n`. */
  private advanceSegment(n: number): void {
    while (this.centre(this.segIdx + 1) <= n) this.segIdx++;
    this.segStart = this.centre(this.segIdx);
    this.segEnd = this.centre(this.segIdx + 1);
    this.segTau = TAU0 + this.segIdx * HS;
    this.segSlope = HS / (this.segEnd - this.segStart);
  }

  /** Copies x[from, from + len) into dst with zeros outside the signal. */
  private copyInput(dst: Float64Array, from: number): void {
    const { x } = this;
    for (let i = 0; i < dst.length; i++) {
      const idx = from + i;
      dst[i] = idx >= 0 && idx < x.length ? x[idx]! : 0;
    }
  }

  /**
   * Normalised cross-correlation of the natural continuation of the previous
   * frame with candidates within ±TOL: coarse on every 2nd lag and sample,
   * then refined around the best coarse lag.
   */
  private bestOffset(): number {
    const { seg, nat } = this;
    const len = nat.length;
    let natEnergy = 0;
    for (let i = 0; i < len; i++) natEnergy += nat[i]! * nat[i]!;
    if (natEnergy < 1e-12) return 0;
    let best = 0;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (let pass = 0; pass < 2; pass++) {
      // Pass 0: every 2nd lag on every 4th sample (the periodicity lives below 2 kHz);
      // pass 1: every lag near the winner, on all samples.
      const lagStep = pass === 0 ? 2 : 1;
      const step = pass === 0 ? 4 : 1;
      const from = pass === 0 ? -TOL : Math.max(-TOL, best - 3);
      const to = pass === 0 ? TOL : Math.min(TOL, best + 3);
      bestScore = Number.NEGATIVE_INFINITY;
      for (let d = from; d <= to; d += lagStep) {
        let dot = 0;
        let en = 0;
        const off = TOL + d;
        for (let i = 0; i < len; i += step) {
          const v = seg[off + i]!;
          dot += nat[i]! * v;
          en += v * v;
        }
        const score = dot / Math.sqrt(en + 1e-12);
        if (score > bestScore) {
          bestScore = score;
          best = d;
        }
      }
    }
    return best;
  }

  private synthesizeNext(lowestNeeded: number): void {
    const k = this.synthesized++;
    const nominal = Math.round(this.centre(k)) - N / 2;
    this.copyInput(this.seg, nominal - TOL);
    let delta = 0;
    if (k > 0) {
      this.copyInput(this.nat, this.prevStart + HS);
      delta = this.bestOffset();
    }
    this.prevStart = nominal + delta;

    const outStart = TAU0 + k * HS - N / 2;
    if (outStart + N - this.sBase > RING) {
      // Slide the ring: everything below the reader's lowest tap is no longer needed.
      const drop = Math.min(lowestNeeded - this.sBase, outStart - this.sBase);
      this.sBuf.copyWithin(0, drop);
      this.sBuf.fill(0, RING - drop);
      this.sBase += drop;
    }
    const { sBuf, seg, hann } = this;
    const at = outStart - this.sBase;
    const from = TOL + delta;
    for (let i = 0; i < N; i++) sBuf[at + i] = sBuf[at + i]! + hann[i]! * seg[from + i]!;
  }
}
