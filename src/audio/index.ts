/**
 * The sandbox's audio engine: decoding, voice change and WAV encoding.
 *
 * Public surface used by the sandbox server. Heavy work runs in a worker thread
 * (see `runRedactionInWorker`) so a long file never blocks other requests.
 * How request fields map to the DSP is documented in ./README.md.
 */
import { decodeToWorkingRate, measureDuration, readFormat } from './decode.js';
import { redactFile } from './redact.js';
import type { RedactionOutcome, VoiceParams } from './types.js';
import { redactInWorker } from './worker-client.js';

export type { DecodedAudio } from './decode.js';
export { WORKING_RATE } from './decode.js';
export { AudioDecodeError } from './errors.js';
export type { RedactionOutcome, VoiceParams } from './types.js';
export type { VoicePlan } from './voice-map.js';
export { planVoice } from './voice-map.js';
export { decodeToWorkingRate };

/**
 * Duration of a WAV or MP3 file in seconds, from exact container arithmetic
 * (WAV data size; MP3 frame count, gapless trim applied). Throws
 * AudioDecodeError when the file is not decodable or has no samples.
 */
export async function measureAudioDuration(inputPath: string): Promise<number> {
  return measureDuration(inputPath);
}

/** The format the decoder reads the file as (`wav` or `mp3`), or null when it reads neither. */
export function audioFileFormat(inputPath: string): ReturnType<typeof readFormat> {
  return readFormat(inputPath);
}

/** Decodes `inputPath`, changes the voice, writes a 16-bit PCM mono 16 kHz WAV to `outputPath`. */
export async function redactAudioFile(
  inputPath: string,
  outputPath: string,
  params: VoiceParams,
): Promise<RedactionOutcome> {
  return redactFile(inputPath, outputPath, params);
}

/** Same as `redactAudioFile`, off the main thread. */
export async function runRedactionInWorker(
  inputPath: string,
  outputPath: string,
  params: VoiceParams,
): Promise<RedactionOutcome> {
  return redactInWorker(inputPath, outputPath, params);
}
