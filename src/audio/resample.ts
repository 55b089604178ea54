import { kaiserSinc } from './sinc.js';

function gcd(a: number, b: number): number {
  let x = Math.abs(a);
  let y = Math.abs(b);
  while (y) [x, y] = [y, x % y];
  return x;
}

const ZERO_CROSSINGS = 16;
/** Cutoff as a fraction of the lower Nyquist: leaves a transition band so 16 zero crossings suffice. */
const CUTOFF = 0.94;

/**
 * Streaming sample-rate converter (any integer rate → any integer rate).
 *
 * Output sample n sits at input position n·inRate/outRate. Positions are
 * computed with integers (n·M / L, the reduced ratio), so a 60-minute file
 * accumulates no drift, and the fractional part takes only L distinct values:
 * the kernel is precomputed once per phase (polyphase bank) and each output
 * sample costs one dot product. The kernel is centred, so there is no delay.
 */
export class StreamingResampler {
  private readonly L: number;
  private readonly M: number;
  private readonly K: number;
  private readonly taps: number;
  private readonly bank: Float32Array | null;
  private hist = new Float32Array(0);
  /** Absolute input index of hist[0]; starts negative so the first outputs see zeros before the signal. */
  private histStart: number;
  private histLen: number;
  private inCount = 0;
  private outCount = 0;
  private finished = false;

  constructor(
    readonly inRate: number,
    readonly outRate: number,
  ) {
    const g = gcd(inRate, outRate);
    this.L = outRate / g;
    this.M = inRate / g;
    if (this.L === this.M) {
      this.K = 0;
      this.taps = 0;
      this.bank = null;
      this.histStart = 0;
      this.histLen = 0;
      return;
    }
    const fc = CUTOFF * Math.min(1, outRate / inRate);
    this.K = Math.ceil(ZERO_CROSSINGS / fc);
    this.taps = 2 * this.K;
    this.bank = new Float32Array(this.L * this.taps);
    for (let p = 0; p < this.L; p++) {
      const frac = p / this.L;
      let sum = 0;
      const row = new Float64Array(this.taps);
      for (let t = 0; t < this.taps; t++) {
        const d = frac - (t - this.K + 1);
        row[t] = kaiserSinc(fc * d, ZERO_CROSSINGS);
        sum += row[t]!;
      }
      // Normalising each phase to unit DC gain keeps silence-to-speech steps free of ripple.
      for (let t = 0; t < this.taps; t++) this.bank[p * this.taps + t] = row[t]! / sum;
    }
    this.histStart = -this.K;
    this.histLen = this.K;
    this.hist = new Float32Array(Math.max(4096, 2 * this.K));
  }

  /** Number of output samples the whole stream produces: the input duration at the new rate. */
  private totalOut(): number {
    return Math.round((this.inCount * this.L) / this.M);
  }

  /** Feeds input samples; returns the output samples that became computable. */
  push(input: Float32Array): Float32Array {
    if (this.finished) throw new Error('resampler already finished');
    if (!this.bank) {
      this.inCount += input.length;
      this.outCount += input.length;
      return input.slice();
    }
    this.inCount += input.length;
    this.append(input);
    return this.produce(false);
  }

  /** Ends the stream: pads with zeros and returns the outputs up to the input's exact duration. */
  finish(): Float32Array {
    if (this.finished) return new Float32Array(0);
    this.finished = true;
    if (!this.bank) return new Float32Array(0);
    this.append(new Float32Array(this.K + 1));
    return this.produce(true);
  }

  private append(input: Float32Array): void {
    // Drop history the next output no longer needs before growing.
    const firstNeeded = Math.floor((this.outCount * this.M) / this.L) - this.K + 1;
    const drop = Math.max(0, Math.min(this.histLen, firstNeeded - this.histStart));
    if (drop > 0) {
      this.hist.copyWithin(0, drop, this.histLen);
      this.histLen -= drop;
      this.histStart += drop;
    }
    if (this.histLen + input.length > this.hist.length) {
      const grown = new Float32Array(Math.max(this.histLen + input.length, this.hist.length * 2));
      grown.set(this.hist.subarray(0, this.histLen));
      this.hist = grown;
    }
    this.hist.set(input, this.histLen);
    this.histLen += input.length;
  }

  private produce(final: boolean): Float32Array {
    const bank = this.bank as Float32Array;
    const { L, M, K, taps, hist } = this;
    const histEnd = this.histStart + this.histLen;
    const limit = final ? this.totalOut() : Number.POSITIVE_INFINITY;
    // Largest n whose rightmost tap (floor(nM/L) + K) is already buffered.
    const maxByInput = Math.floor(((histEnd - K) * L - 1) / M);
    const last = Math.min(limit - 1, maxByInput);
    const count = Math.max(0, last - this.outCount + 1);
    const out = new Float32Array(count);
    for (let i = 0; i < count; i++) {
      const num = (this.outCount + i) * M;
      const base = Math.floor(num / L);
      const phase = num - base * L;
      const off = base - K + 1 - this.histStart;
      const row = phase * taps;
      let acc = 0;
      for (let t = 0; t < taps; t++) acc += hist[off + t]! * bank[row + t]!;
      out[i] = acc;
    }
    this.outCount += count;
    return out;
  }
}
