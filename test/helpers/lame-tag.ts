/**
 * A LAME extension for the synthetic MP3s of test/helpers/mp3.ts: the encoder delay and padding that
 * a gapless decoder trims. Real encoders write them; the generator leaves them zero.
 */

/**
 * Returns a copy of `mp3` (made by `makeMp3` with an `infoHeader`) whose Xing/Info frame carries a LAME
 * extension with this encoder delay and padding. The encoder name decides whether a reader trusts the
 * fields: a non-printable one (`'\0\0\0\0'`) is a tag that a reader must ignore.
 */
export function withLameTag(mp3: Buffer, delay: number, padding: number, encoder = 'LAME3.100'): Buffer {
  const out = Buffer.from(mp3);
  const xing = out.indexOf('Xing', 0, 'latin1');
  const at = xing >= 0 ? xing : out.indexOf('Info', 0, 'latin1');
  if (at < 0) throw new Error('no Xing/Info frame to extend');
  const flags = out.readUInt32BE(at + 4);
  let lame = at + 8;
  if (flags & 1) lame += 4;
  if (flags & 2) lame += 4;
  if (flags & 4) lame += 100;
  if (flags & 8) lame += 4;
  if (lame + 24 > out.length) throw new Error('the info frame is too small for a LAME extension');
  out.write(encoder.padEnd(9, '\0').slice(0, 9), lame, 'latin1');
  out[lame + 21] = delay >> 4;
  out[lame + 22] = ((delay & 0x0f) << 4) | (padding >> 8);
  out[lame + 23] = padding & 0xff;
  return out;
}

/**
 * Returns a copy of `mp3` (made by `makeMp3` with a Xing or Info frame) whose tag has no frame count,
 * as a streaming encoder that never knew it writes it: the fields after it move up within the frame.
 * Apply before `withLameTag`.
 */
export function withoutFrameCount(mp3: Buffer): Buffer {
  const out = Buffer.from(mp3);
  const xing = out.indexOf('Xing', 0, 'latin1');
  const at = xing >= 0 ? xing : out.indexOf('Info', 0, 'latin1');
  if (at < 0) throw new Error('no Xing/Info frame to change');
  const flags = out.readUInt32BE(at + 4);
  if (!(flags & 1)) throw new Error('the tag has no frame count');
  const after = (flags & 2 ? 4 : 0) + (flags & 4 ? 100 : 0) + (flags & 8 ? 4 : 0);
  out.writeUInt32BE(flags & ~1, at + 4);
  out.copy(out, at + 8, at + 12, at + 12 + after);
  out.fill(0, at + 8 + after, at + 12 + after);
  return out;
}
