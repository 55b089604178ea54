/**
 * Growable Float32 store for the decoded 16 kHz mono signal. Callers pass the
 * expected length (known from WAV headers / MP3 frame counts) so that a long
 * file is written into one exact allocation and never copied while growing.
 */
export class SampleBuffer {
  private data: Float32Array;
  private used = 0;

  constructor(expectedLength: number) {
    this.data = new Float32Array(Math.max(1024, Math.ceil(expectedLength)));
  }

  get length(): number {
    return this.used;
  }

  append(chunk: Float32Array): void {
    const needed = this.used + chunk.length;
    if (needed > this.data.length) {
      // Only reached when the estimate was short (e.g. a damaged MP3 stream).
      const grown = new Float32Array(Math.max(needed, Math.ceil(this.data.length * 1.25)));
      grown.set(this.data.subarray(0, this.used));
      this.data = grown;
    }
    this.data.set(chunk, this.used);
    this.used = needed;
  }

  /** The samples appended so far (a view; no copy). */
  samples(): Float32Array {
    return this.data.subarray(0, this.used);
  }
}
