/**
 * Measurement helpers for the audio tests. They are deliberately independent
 * of src/audio (own WAV reader, own F0 and spectrum estimators), so a test
 * compares the engine against a second opinion rather than against itself.
 */
import { readFile } from 'node:fs/promises';

export interface Pcm16Wav {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  formatTag: number;
  samples: Float32Array;
  /** The raw int16 values. */
  pcm: Int16Array;
}

/** Minimal RIFF reader for the engine's output (PCM16); walks chunks, so it also checks the layout. */
export async function readPcm16Wav(path: string): Promise<Pcm16Wav> {
  const b = await readFile(path);
  if (b.toString('ascii', 0, 4) !== 'RIFF' || b.toString('ascii', 8, 12) !== 'WAVE')
    throw new Error('not RIFF/WAVE');
  let pos = 12;
  let fmt: Omit<Pcm16Wav, 'samples' | 'pcm'> | undefined;
  while (pos + 8 <= b.length) {
    const id = b.toString('ascii', pos, pos + 4);
    const size = b.readUInt32LE(pos + 4);
    if (id === 'fmt ') {
      fmt = {
        formatTag: b.readUInt16LE(pos + 8),
        channels: b.readUInt16LE(pos + 10),
        sampleRate: b.readUInt32LE(pos + 12),
        bitsPerSample: b.readUInt16LE(pos + 22),
      };
    } else if (id === 'data') {
      if (!fmt) throw new Error('data before fmt');
      const count = Math.floor(size / 2);
      const pcm = new Int16Array(count);
      const samples = new Float32Array(count);
      for (let i = 0; i < count; i++) {
        pcm[i] = b.readInt16LE(pos + 8 + 2 * i);
        samples[i] = pcm[i]! / 32768;
      }
      return { ...fmt, samples, pcm };
    }
    pos += 8 + size + (size & 1);
  }
  throw new Error('no data chunk');
}

/** Canonical PCM16 mono WAV bytes, for building test inputs. */
export function pcm16Wav(samples: Float32Array, sampleRate: number): Buffer {
  const body = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) {
    body.writeInt16LE(Math.round(Math.max(-1, Math.min(1, samples[i]!)) * 32767), 2 * i);
  }
  return riff([chunk('fmt ', fmtPcm(1, sampleRate, 16)), chunk('data', body)]);
}

export function fmtPcm(channels: number, sampleRate: number, bits: number): Buffer {
  const f = Buffer.alloc(16);
  f.writeUInt16LE(1, 0);
  f.writeUInt16LE(channels, 2);
  f.writeUInt32LE(sampleRate, 4);
  f.writeUInt32LE((sampleRate * channels * bits) / 8, 8);
  f.writeUInt16LE((channels * bits) / 8, 12);
  f.writeUInt16LE(bits, 14);
  return f;
}

/** A RIFF chunk with its pad byte when the body has odd length. */
export function chunk(id: string, body: Buffer): Buffer {
  const h = Buffer.alloc(8);
  h.write(id, 0, 'ascii');
  h.writeUInt32LE(body.length, 4);
  return Buffer.concat([h, body, body.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

export function riff(chunks: Buffer[]): Buffer {
  const body = Buffer.concat(chunks);
  const h = Buffer.alloc(12);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(4 + body.length, 4);
  h.write('WAVE', 8, 'ascii');
  return Buffer.concat([h, body]);
}

/**
 * F0 per 10 ms frame by normalised autocorrelation (40 ms frames, 60–400 Hz);
 * 0 for frames whose best normalised correlation is under 0.7 or that are quiet.
 */
export function f0Track(x: Float32Array, rate: number): number[] {
  const frame = Math.round(0.04 * rate);
  const hop = Math.round(0.01 * rate);
  const minLag = Math.floor(rate / 400);
  const maxLag = Math.ceil(rate / 60);
  let peak = 0;
  for (const v of x) peak = Math.max(peak, Math.abs(v));
  const out: number[] = [];
  for (let start = 0; start + frame + maxLag < x.length; start += hop) {
    let e0 = 0;
    for (let i = 0; i < frame; i++) e0 += x[start + i]! ** 2;
    if (Math.sqrt(e0 / frame) < 0.02 * peak) {
      out.push(0);
      continue;
    }
    const nccf = new Float64Array(maxLag + 2);
    for (let lag = minLag - 1; lag <= maxLag + 1; lag++) {
      let dot = 0;
      let e1 = 0;
      for (let i = 0; i < frame; i++) {
        dot += x[start + i]! * x[start + i + lag]!;
        e1 += x[start + i + lag]! ** 2;
      }
      nccf[lag] = dot / Math.sqrt(e0 * e1 + 1e-12);
    }
    let best = -1;
    let bestVal = 0.7;
    for (let lag = minLag; lag <= maxLag; lag++) {
      // Prefer the shortest lag within 5 % of the global maximum to avoid sub-octave picks.
      if (nccf[lag]! > bestVal) {
        bestVal = nccf[lag]!;
        best = lag;
      }
    }
    if (best < 0) {
      out.push(0);
      continue;
    }
    for (let lag = minLag; lag < best; lag++) {
      if (nccf[lag]! > 0.95 * bestVal && nccf[lag]! >= nccf[lag - 1]! && nccf[lag]! >= nccf[lag + 1]!) {
        best = lag;
        break;
      }
    }
    const a = nccf[best - 1]!;
    const b = nccf[best]!;
    const c = nccf[best + 1]!;
    const den = a - 2 * b + c;
    const shift = den < 0 ? (0.5 * (a - c)) / den : 0;
    out.push(rate / (best + shift));
  }
  return out;
}

export function median(values: number[]): number {
  const v = [...values].sort((a, b) => a - b);
  if (v.length === 0) return Number.NaN;
  const m = v.length >> 1;
  return v.length % 2 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
}

export const medianVoicedF0 = (x: Float32Array, rate: number): number =>
  median(f0Track(x, rate).filter((f) => f > 0));

/**
 * Interquartile range of log2(F0) over voiced frames: the width of the
 * intonation contour in octaves, robust to the odd octave error.
 */
export function f0IqrOctaves(x: Float32Array, rate: number): number {
  const logs = f0Track(x, rate)
    .filter((f) => f > 0)
    .map((f) => Math.log2(f))
    .sort((a, b) => a - b);
  const q = (p: number): number => logs[Math.round(p * (logs.length - 1))]!;
  return q(0.75) - q(0.25);
}

/** In-place radix-2 FFT (re, im of power-of-two length). */
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const ang = (-2 * Math.PI) / len;
    for (let i = 0; i < n; i += len) {
      for (let k = 0; k < len / 2; k++) {
        const wr = Math.cos(ang * k);
        const wi = Math.sin(ang * k);
        const ar = re[i + k + len / 2]!;
        const ai = im[i + k + len / 2]!;
        const tr = ar * wr - ai * wi;
        const ti = ar * wi + ai * wr;
        re[i + k + len / 2] = re[i + k]! - tr;
        im[i + k + len / 2] = im[i + k]! - ti;
        re[i + k] = re[i + k]! + tr;
        im[i + k] = im[i + k]! + ti;
      }
    }
  }
}

/** Long-term average power spectrum (512-point Hann frames, 50 % overlap) of the louder frames. */
export function averageSpectrum(x: Float32Array): Float64Array {
  const n = 512;
  const acc = new Float64Array(n / 2 + 1);
  let peak = 0;
  for (const v of x) peak = Math.max(peak, Math.abs(v));
  for (let start = 0; start + n <= x.length; start += n / 2) {
    const re = new Float64Array(n);
    const im = new Float64Array(n);
    let e = 0;
    for (let i = 0; i < n; i++) {
      const w = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n);
      re[i] = x[start + i]! * w;
      e += x[start + i]! ** 2;
    }
    if (Math.sqrt(e / n) < 0.05 * peak) continue;
    fft(re, im);
    for (let k = 0; k <= n / 2; k++) acc[k] = acc[k]! + re[k]! ** 2 + im[k]! ** 2;
  }
  return acc;
}

/** Power-weighted mean frequency of a 512-point spectrum between loHz and hiHz. */
export function spectralCentroid(spectrum: Float64Array, rate: number, loHz: number, hiHz: number): number {
  const binHz = rate / 512;
  let num = 0;
  let den = 0;
  for (let k = Math.ceil(loHz / binHz); k <= Math.floor(hiHz / binHz); k++) {
    num += k * binHz * spectrum[k]!;
    den += spectrum[k]!;
  }
  return num / den;
}

/** RMS per `frameMs` frame. */
export function rmsEnvelope(x: Float32Array, rate: number, frameMs = 20): number[] {
  const n = Math.round((frameMs / 1000) * rate);
  const out: number[] = [];
  for (let s = 0; s + n <= x.length; s += n) {
    let e = 0;
    for (let i = 0; i < n; i++) e += x[s + i]! ** 2;
    out.push(Math.sqrt(e / n));
  }
  return out;
}

export function correlation(a: number[], b: number[]): number {
  const n = Math.min(a.length, b.length);
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i]!;
    mb += b[i]!;
  }
  ma /= n;
  mb /= n;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    sab += (a[i]! - ma) * (b[i]! - mb);
    saa += (a[i]! - ma) ** 2;
    sbb += (b[i]! - mb) ** 2;
  }
  return sab / Math.sqrt(saa * sbb);
}

/** Best correlation of `b` against `a` over shifts of ±maxShift frames (codec delays differ by layout). */
export function bestShiftedCorrelation(a: number[], b: number[], maxShift: number): number {
  let best = -1;
  for (let s = -maxShift; s <= maxShift; s++) {
    const aa = s >= 0 ? a.slice(0, a.length - s) : a.slice(-s);
    const bb = s >= 0 ? b.slice(s) : b.slice(0, b.length + s);
    best = Math.max(best, correlation(aa, bb));
  }
  return best;
}

/** Coefficients (powers of z⁻¹, a[0] = 1) of Π (1 − 2ρcosθ z⁻¹ + ρ² z⁻²) over the given pole pairs. */
export function polyFromPairs(pairs: Array<[number, number]>): Float64Array {
  let p = [1];
  for (const [rho, theta] of pairs) {
    const q = [1, -2 * rho * Math.cos(theta), rho * rho];
    const r = new Array(p.length + 2).fill(0);
    p.forEach((pv, i) => {
      q.forEach((qv, j) => {
        r[i + j] += pv * qv;
      });
    });
    p = r;
  }
  return Float64Array.from(p);
}

export function sine(hz: number, seconds: number, rate: number, amp = 0.5): Float32Array {
  return Float32Array.from(
    { length: Math.round(seconds * rate) },
    (_, i) => amp * Math.sin((2 * Math.PI * hz * i) / rate),
  );
}

/** Frequency from upward zero crossings (fine for a clean tone). */
export function toneHz(x: Float32Array, rate: number): number {
  const crossings: number[] = [];
  for (let i = 1; i < x.length; i++) {
    if (x[i - 1]! < 0 && x[i]! >= 0) crossings.push(i - 1 + x[i - 1]! / (x[i - 1]! - x[i]!));
  }
  return ((crossings.length - 1) * rate) / (crossings.at(-1)! - crossings[0]!);
}
