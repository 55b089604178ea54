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
