/**
 * Peak limiter with one block (10 ms) of look-ahead, so the output never
 * exceeds the ceiling and never needs hard clipping.
 *
 * Each block b has a target gain t_b = min(1, ceiling / peak_b). The gain ramps
 * linearly across block b from its value at the end of block b−1 to
 * min(t_b, t_{b+1}); both ends are ≤ t_b, so every sample of block b is ≤ the
 * ceiling. Release (gain going back up) is rate-limited to avoid pumping.
 */
export class PeakLimiter {
  private pending = new Float32Array(0);
  private pendingLen = 0;
  private gain = 1;
  private started = false;

  constructor(
    private readonly ceiling = 0.98,
    private readonly block = 160,
    /** Largest gain increase per block (≈ 0.5 s from −6 dB back to unity). */
    private readonly release = 0.01,
  ) {}

  private target(from: number, len: number): number {
    let peak = 0;
    const p = this.pending;
    for (let i = from; i < from + len; i++) {
      const v = Math.abs(p[i]!);
      if (v > peak) peak = v;
    }
    return peak > this.ceiling ? this.ceiling / peak : 1;
  }

  /** Feeds samples; returns those whose gain is now decided (delayed by up to two blocks). */
  process(input: Float32Array): Float32Array {
    if (this.pendingLen + input.length > this.pending.length) {
      const grown = new Float32Array(Math.max(this.pendingLen + input.length, this.pending.length * 2));
      grown.set(this.pending.subarray(0, this.pendingLen));
      this.pending = grown;
    }
    this.pending.set(input, this.pendingLen);
    this.pendingLen += input.length;
    return this.emit(false);
  }

  /** Returns everything still held back. */
  flush(): Float32Array {
    return this.emit(true);
  }

  private emit(final: boolean): Float32Array {
    const { block } = this;
    const blocks = final ? Math.ceil(this.pendingLen / block) : Math.floor(this.pendingLen / block) - 1;
    if (blocks <= 0) return new Float32Array(0);
    const count = Math.min(this.pendingLen, blocks * block);
    const out = new Float32Array(count);
    const p = this.pending;
    for (let b = 0; b < blocks; b++) {
      const from = b * block;
      const len = Math.min(block, this.pendingLen - from);
      const here = this.target(from, len);
      const nextLen = Math.min(block, this.pendingLen - from - len);
      const next = nextLen > 0 ? this.target(from + len, nextLen) : 1;
      let g0 = this.gain;
      if (!this.started || g0 > here) g0 = Math.min(g0, here);
      this.started = true;
      const g1 = Math.min(here, next, g0 + this.release);
      for (let i = 0; i < len; i++) out[from + i] = p[from + i]! * (g0 + ((g1 - g0) * (i + 1)) / len);
      this.gain = g1;
    }
    this.pending.copyWithin(0, count, this.pendingLen);
    this.pendingLen -= count;
    return out;
  }
}
