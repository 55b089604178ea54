/**
 * The one home for telling audio by its first bytes (never by its name) before it is sent: the
 * client's local check. The sandbox labels what it accepted as its decoder reads it (decode.ts).
 */
import { looksLikeMp3 } from './mp3-frames.js';
import { type Mp3FrameHeader, parseMp3Header } from './mp3-header.js';
import { isRiffWave } from './riff.js';

/**
 * What the first bytes say: a RIFF/WAVE (or RF64) header, or an MP3 (an ID3v2 tag, a Layer III frame
 * header at the very start, or two frames in a row within the first 4 KiB: a recorder's or a cut
 * stream's few junk bytes before the first frame, which the sandbox's decoder reads past too).
 * Anything else is not sent.
 */
export function sniffFormat(head: Buffer): 'WAV' | 'MP3' | undefined {
  if (isRiffWave(head)) return 'WAV';
  if (head.length >= 10 && head.toString('latin1', 0, 3) === 'ID3') return 'MP3';
  const first = frameHeaderAtStart(head);
  if (first) return first.layer === 3 ? 'MP3' : undefined;
  return looksLikeMp3(head) ? 'MP3' : undefined;
}

/** The MPEG frame header the file starts with, if any. */
export function frameHeaderAtStart(head: Buffer): Mp3FrameHeader | null {
  if (head.length < 4) return null;
  return parseMp3Header(head[0] as number, head[1] as number, head[2] as number, head[3] as number);
}
