/** Names, types and seeds the sandbox derives from an upload. */
import { createHash } from 'node:crypto';
import { audioFileFormat } from '../audio/index.js';

/** The result item of `call.mp3` is `call.redacted.wav`; of `x.wav`, `x.redacted.wav`. */
export function resultNameFor(sourceName: string): string {
  const slash = Math.max(sourceName.lastIndexOf('/'), sourceName.lastIndexOf('\\'));
  const dot = sourceName.lastIndexOf('.');
  const stem = dot > slash + 1 ? sourceName.slice(0, dot) : sourceName;
  return `${stem}.redacted.wav`;
}

/** The name a content item gets when the client sent none. */
export const UNNAMED_UPLOAD = 'upload';

export type AudioKind = { contentType: string; extension: string };

/**
 * What an accepted upload is, as the decoder that accepted it reads it (an MP3 may follow leading
 * junk, a WAV may be RF64); anything else is octet-stream.
 */
export async function sniffAudioKind(path: string): Promise<AudioKind> {
  const format = await audioFileFormat(path);
  if (format === 'wav') return { contentType: 'audio/wav', extension: '.wav' };
  if (format === 'mp3') return { contentType: 'audio/mpeg', extension: '.mp3' };
  return { contentType: 'application/octet-stream', extension: '.bin' };
}

/**
 * The voice-change seed of an upload: from --seed and the bytes of the file, so the same file sent
 * again to a sandbox with the same --seed gives the same voice, synchronously or not.
 */
export function voiceSeed(seed: number, sha256: string): number {
  return createHash('sha256').update(`${seed}\n${sha256}`).digest().readUInt32BE(0);
}
