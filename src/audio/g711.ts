/**
 * G.711 µ-law and A-law expansion (ITU-T G.711), as lookup tables of the 256
 * codes scaled to [-1, 1). Telephony WAVs (format tags 6 and 7) use these.
 */

function ulawToLinear(code: number): number {
  const u = ~code & 0xff;
  const exponent = (u >> 4) & 0x07;
  const magnitude = ((((u & 0x0f) << 3) + 0x84) << exponent) - 0x84;
  return u & 0x80 ? -magnitude : magnitude;
}

function alawToLinear(code: number): number {
  const a = code ^ 0x55;
  const exponent = (a & 0x70) >> 4;
  const mantissa = a & 0x0f;
  const magnitude = exponent === 0 ? (mantissa << 4) + 8 : ((mantissa << 4) + 0x108) << (exponent - 1);
  // In A-law a set sign bit means positive (the opposite of µ-law).
  return a & 0x80 ? magnitude : -magnitude;
}

function table(expand: (code: number) => number): Float32Array {
  const t = new Float32Array(256);
  for (let i = 0; i < 256; i++) t[i] = expand(i) / 32768;
  return t;
}

export const ULAW_TABLE = table(ulawToLinear);
export const ALAW_TABLE = table(alawToLinear);
