/**
 * WAV bodies for download tests: results whole or not (16-bit mono at 8 kHz, 16,000 bytes a second),
 * built by code so that each test says which bytes it serves.
 */
import { pcm16MonoHeader } from '../../src/audio/wav-encode.js';

const RATE = 8000;

/** A whole WAV whose `data` chunk holds `dataBytes` (even) bytes of `fill`: 44 bytes more in all. */
export function resultWav(dataBytes: number, fill = 7): Buffer {
  return Buffer.concat([pcm16MonoHeader(dataBytes / 2, RATE), Buffer.alloc(dataBytes, fill)]);
}

/** A whole WAV of `seconds` of audio. */
export function resultWavOf(seconds: number, fill = 7): Buffer {
  return resultWav(Math.round(seconds * RATE) * 2, fill);
}

/** A WAV header declaring `declaredBytes` of audio, followed by `presentBytes` of them only. */
export function wavCutShort(declaredBytes: number, presentBytes: number): Buffer {
  const whole = resultWav(declaredBytes);
  return whole.subarray(0, whole.length - (declaredBytes - presentBytes));
}

/** The header a streaming encoder writes, no length known (RIFF and data sizes 0xFFFFFFFF). */
export function streamingWavHead(): Buffer {
  const head = pcm16MonoHeader(0, RATE);
  head.writeUInt32LE(0xffffffff, 4);
  head.writeUInt32LE(0xffffffff, 40);
  return head;
}

/** A whole PCM WAV of `seconds` in a layout of its own (24-bit stereo at 96 kHz, say), filled with `fill`. */
export function layoutWav(
  layout: { sampleRate: number; channels: number; bits: number },
  seconds: number,
  fill = 5,
): Buffer {
  const { sampleRate, channels, bits } = layout;
  const blockAlign = channels * (bits / 8);
  const dataBytes = Math.round(seconds * sampleRate) * blockAlign;
  const head = Buffer.alloc(44);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(36 + dataBytes, 4);
  head.write('WAVEfmt ', 8, 'latin1');
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20);
  head.writeUInt16LE(channels, 22);
  head.writeUInt32LE(sampleRate, 24);
  head.writeUInt32LE(sampleRate * blockAlign, 28);
  head.writeUInt16LE(blockAlign, 32);
  head.writeUInt16LE(bits, 34);
  head.write('data', 36, 'latin1');
  head.writeUInt32LE(dataBytes, 40);
  return Buffer.concat([head, Buffer.alloc(dataBytes, fill)]);
}

/**
 * A copy of `wav` with its last byte changed: a result of the same duration that is not the upload
 * itself (which vredact refuses as no redaction), for servers that answer with what they were sent.
 */
export function changedWav(wav: Buffer): Buffer {
  const copy = Buffer.from(wav);
  if (copy.length > 0) copy.writeUInt8(copy.readUInt8(copy.length - 1) ^ 1, copy.length - 1);
  return copy;
}

/** The WAV part of a multipart upload, as a scripted server received it: from its RIFF header to the boundary after it. */
export function uploadedWav(body: Buffer, contentType: string): Buffer {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/.exec(contentType);
  const start = body.indexOf('RIFF');
  return body.subarray(start, body.indexOf(`\r\n--${boundary?.[1] ?? boundary?.[2] ?? ''}`, start));
}
