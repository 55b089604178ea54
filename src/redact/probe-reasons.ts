/**
 * What a local check's rejection says, with what to do next where the user can act: split a
 * recording over a limit, or raise the limit; convert a file vredact cannot take. The audio modules
 * say what is wrong (one rule for a check, a result's verification and the sandbox); only here, for
 * the user's own files, is a next step added to it.
 */
import { frameHeaderAtStart } from '../audio/sniff.js';
import type { WavFormatError } from '../audio/riff.js';
import { apart, exactSeconds, formatBytes, formatDuration } from '../output/format.js';

export function tooLarge(size: number, limit: number): string {
  const [shown, most] = apart([size, limit], formatBytes, (bytes) => `${bytes} bytes`);
  return `too large: ${shown}, the limit is ${most}; split the recording, or raise the limit with --max-size if the service takes larger ones`;
}

export function tooLong(seconds: number, limit: number): string {
  const [shown, most] = apart([seconds, limit], formatDuration, exactSeconds);
  return `too long: ${shown}, the limit is ${most}; split the recording, or raise the limit with --max-duration if the service takes longer ones`;
}

const TO_PCM = 'convert it to PCM WAV first (e.g. ffmpeg -i in.wav -c:a pcm_s16le out.wav)';

function toWav(extension: string): string {
  return `convert it to WAV first (e.g. ffmpeg -i in.${extension} -c:a pcm_s16le out.wav)`;
}

/** A WAV file the check cannot take: a layout of samples it does not measure can be converted. */
export function unusableWav(error: WavFormatError): string {
  // Its messages read "a WAV file with …" (a result "is" one): named as unreadable here.
  const said = error.message.startsWith('a WAV file') ? `not readable: ${error.message}` : error.message;
  return error.unsupportedSamples ? `${said}; ${TO_PCM}` : said;
}

/** Formats told by their first bytes, with the extension their files usually have. */
const OTHER_FORMATS: Array<[RegExp, string, string]> = [
  [/^fLaC/, 'FLAC', 'flac'],
  [/^OggS/, 'Ogg', 'ogg'],
  [/^.{4}ftyp/s, 'MP4/M4A', 'm4a'],
  [/^FORM.{4}AIF/s, 'AIFF', 'aiff'],
  [/^\x1aE\xdf\xa3/, 'Matroska/WebM', 'webm'],
  [/^#!AMR/, 'AMR', 'amr'],
];

/** A name and extension for a few common formats that are not WAV or MP3. */
function otherFormat(head: Buffer): [string, string] | undefined {
  const text = head.toString('latin1');
  for (const [pattern, name, extension] of OTHER_FORMATS) if (pattern.test(text)) return [name, extension];
  if (head.length >= 2 && head[0] === 0xff && ((head[1] as number) & 0xf6) === 0xf0)
    return ['AAC (ADTS)', 'aac'];
  const header = frameHeaderAtStart(head);
  if (header) return [`MPEG layer ${header.layer === 1 ? 'I' : 'II'} audio`, 'mp2'];
  return undefined;
}

/** Bytes that are neither: a known audio format is named and can be converted; anything else cannot. */
export function notWavOrMp3(head: Buffer): string {
  const other = otherFormat(head);
  if (!other) return 'not a WAV or MP3 file';
  return `not a WAV or MP3 file (it looks like ${other[0]}); ${toWav(other[1])}`;
}

/** MPEG audio of layer I or II, found by walking its frames. */
export function mpegLayerOneOrTwo(layer: 1 | 2): string {
  return `not a WAV or MP3 file (it is MPEG layer ${layer === 1 ? 'I' : 'II'} audio); ${toWav('mp2')}`;
}
