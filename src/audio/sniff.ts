/**
 * The one home for telling audio by its first bytes (never by its name) before it is sent: the
 * client's local check. The sandbox labels what it accepted as its decoder reads it (decode.ts).
 */
import { type Mp3FrameHeader, parseMp3Header } from './mp3-frames.js';
import { isRiffWave } from './riff.js';

/**
 * What the first bytes say: a RIFF/WAVE header, or an MP3 (an ID3v2 tag, or a Layer III frame header
 * at the very start). Anything else is not sent.
 */
export function sniffFormat(head: Buffer): 'WAV' | 'MP3' | undefined {
  if (isRiffWave(head)) return 'WAV';
  if (head.length >= 10 && head.toString('latin1', 0, 3) === 'ID3') return 'MP3';
  if (frameHeaderAtStart(head)?.layer === 3) return 'MP3';
  return undefined;
}

/** The MPEG frame header the file starts with, if any. */
export function frameHeaderAtStart(head: Buffer): Mp3FrameHeader | null {
  if (head.length < 4) return null;
  return parseMp3Header(head[0] as number, head[1] as number, head[2] as number, head[3] as number);
}
