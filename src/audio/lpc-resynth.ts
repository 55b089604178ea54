/**
 * Frame-by-frame LPC re-synthesis with the McAdams-warped envelope
 * (20 ms frames, 10 ms hop, order 20 at 16 kHz), after the VoicePrivacy
 * Challenge McAdams baseline.
 *
 * Per frame k: fit A(z) to the Hann-windowed input frame; warp its poles
 * (→ Ã(z)); take the excitation e = A(z)·x; run it through 1/Ã(z); window the
 * frame with Hann and overlap-add (Hann sums to exactly 1 at 50 % overlap).
 *
 * Unlike the baseline, which filters each windowed frame from a zero filter
 * state, the residual here is computed on the continuous signal and the
 * synthesis filter is run in over the 15 ms before the frame (started from
 * the true signal history). The zero-state version makes each frame the
 * response to an isolated snippet, whose resonances start from rest and are
 * cut off at the frame edge; run in, each frame is the filter's steady-state
 * response to the continuous excitation. With α = 1 and no pitch change the
 * chain is an exact identity.
 *
 * The excitation is the input's own residual, or — when the pitch is being
 * changed — the residual of the pitch-shifted signal under *its own* LPC fit.
 * The envelope always comes from the original frame, so the pitch shift does
 * not drag the formants along (no "chipmunk" effect); only α moves them.
 */
import { inverseFilter, LpcAnalyzer, synthesisFilter } from './lpc.js';
import { McAdamsWarp } from './mcadams.js';
import type { SequentialSource } from './types.js';

export const FRAME = 320;
export const HOP = 160;
export const LPC_ORDER = 20;
/** Samples the synthesis filter runs before each frame to reach steady state. */
const RUN_IN = 240;
/** Extended segment: filter history + run-in + frame. */
const SPAN = LPC_ORDER + RUN_IN + FRAME;
const FRAME_AT = LPC_ORDER + RUN_IN;
/** Σ (windowed sample)² below this is digital silence: the frame is skipped (~ −100 dBFS). */
const SILENCE_ENERGY = 1e-10 * FRAME;
/** A frame's gain correction is capped so a pathological fit cannot blow up a quiet frame. */
const MAX_GAIN = 8;

export class LpcResynthesizer implements SequentialSource {
  private readonly hann = new Float64Array(FRAME);
  private readonly fw = new Float64Array(FRAME);
  private readonly xe = new Float64Array(SPAN);
  /** The last SPAN samples of the excitation source, ending at the current frame's end. */
  private readonly ye = new Float32Array(SPAN);
  private readonly a = new Float64Array(LPC_ORDER + 1);
  private readonly b = new Float64Array(LPC_ORDER + 1);
  private readonly warped = new Float64Array(LPC_ORDER + 1);
  private readonly e = new Float64Array(SPAN);
  private readonly o = new Float64Array(SPAN);
  private readonly ola = new Float64Array(FRAME);
  private readonly ready = new Float32Array(HOP);
  private readyPos = HOP;
  private frame = 0;
  private readonly lpc = new LpcAnalyzer(LPC_ORDER, 16000);
  private readonly warp = new McAdamsWarp(LPC_ORDER);

  /**
   * @param x the input signal (16 kHz).
   * @param alpha McAdams coefficient (1 = envelope unchanged).
   * @param excitation the pitch-shifted signal, aligned with `x`; null to use `x` itself.
   */
  constructor(
    private readonly x: Float32Array,
    private readonly alpha: number,
    private readonly excitation: SequentialSource | null,
  ) {
    // Periodic Hann, so that overlapping frames sum to exactly one.
    for (let i = 0; i < FRAME; i++) this.hann[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / FRAME);
  }

  /** Frames whose pole warp fell back to the unwarped envelope (for diagnostics). */
  get fallbackFrames(): number {
    return this.warp.fallbacks;
  }

  /** Fills `dst` with the next output samples. */
  read(dst: Float32Array): void {
    let i = 0;
    while (i < dst.length) {
      if (this.readyPos === HOP) this.nextHop();
      const n = Math.min(HOP - this.readyPos, dst.length - i);
      dst.set(this.ready.subarray(this.readyPos, this.readyPos + n), i);
      this.readyPos += n;
      i += n;
    }
  }

  /**
   * Frame k covers input samples [(k−1)·HOP, (k+1)·HOP). After adding it, the
   * first half of the overlap-add buffer is complete and is emitted (frame 0's
   * first half lies before the signal and is dropped).
   */
  private nextHop(): void {
    for (;;) {
      this.addFrame(this.frame);
      const emit = this.frame > 0;
      if (emit) for (let i = 0; i < HOP; i++) this.ready[i] = this.ola[i]!;
      this.ola.copyWithin(0, HOP);
      this.ola.fill(0, HOP);
      this.frame++;
      if (emit) break;
    }
    this.readyPos = 0;
  }

  private addFrame(k: number): void {
    const { x, xe, fw, e, o, a, warped, hann, ola } = this;
    const frameStart = (k - 1) * HOP;
    const spanStart = frameStart - FRAME_AT;
    for (let i = 0; i < SPAN; i++) {
      const idx = spanStart + i;
      xe[i] = idx >= 0 && idx < x.length ? x[idx]! : 0;
    }
    if (this.excitation) {
      // Slide the excitation window by one hop; the shifter is read strictly in order.
      this.ye.copyWithin(0, HOP);
      this.excitation.read(this.ye.subarray(SPAN - HOP));
    }
    let ex = 0;
    for (let i = 0; i < FRAME; i++) {
      const s = xe[FRAME_AT + i]! * hann[i]!;
      fw[i] = s;
      ex += s * s;
    }
    if (ex < SILENCE_ENERGY) return;

    this.lpc.analyze(fw, FRAME, a);
    this.warp.apply(a, this.alpha, warped);

    // Excitation over the run-in and the frame, with true signal history (no zero state).
    let src: ArrayLike<number> = xe;
    let fit = a;
    if (this.excitation) {
      const { ye, b } = this;
      for (let i = 0; i < FRAME; i++) fw[i] = ye[FRAME_AT + i]! * hann[i]!;
      this.lpc.analyze(fw, FRAME, b);
      src = ye;
      fit = b;
    }
    inverseFilter(fit, src, e, SPAN);
    // Synthesis through the warped filter, started from the source's own history.
    for (let n = 0; n < LPC_ORDER; n++) o[n] = src[n]!;
    synthesisFilter(warped, e, o, SPAN);

    let eo = 0;
    for (let i = 0; i < FRAME; i++) {
      const v = o[FRAME_AT + i]! * hann[i]!;
      eo += v * v;
    }
    if (!(eo > 0) || !Number.isFinite(eo)) return;
    const gain = Math.min(Math.sqrt(ex / eo), MAX_GAIN);
    for (let i = 0; i < FRAME; i++) ola[i] = ola[i]! + gain * o[FRAME_AT + i]! * hann[i]!;
  }
}
