/**
 * The speech fixture as a batch's inputs, and as a scripted service's answer to each upload; slices of
 * it as inputs of many lengths.
 */
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { pcm16MonoHeader } from '../../src/audio/wav-encode.js';
import { FIXTURES } from './cli.js';
import { changedWav } from './result-wav.js';

const SPEECH = join(FIXTURES, 'speech-16bit.wav');

/** `<dir>/in/call-<i>.wav`, `count` copies of the speech fixture; returns the folder. */
export async function speechInputs(dir: string, count: number): Promise<string> {
  const folder = join(dir, 'in');
  await mkdir(folder, { recursive: true });
  for (let i = 0; i < count; i++) await copyFile(SPEECH, join(folder, `call-${i}.wav`));
  return folder;
}

/**
 * Answers an upload with the fixture, its last byte changed: a whole WAV as long as each input, and
 * not the upload itself (which is no redaction).
 */
export async function answerWithSpeech(
  res: ServerResponse,
  headers: Record<string, string> = {},
): Promise<void> {
  const wav = changedWav(await readFile(SPEECH));
  res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length, ...headers });
  res.end(wav);
}

/** A WAV of the speech fixture's first `samples` samples (16 kHz mono 16-bit). */
export async function speechSlice(samples: number): Promise<Buffer> {
  const fixture = await readFile(SPEECH);
  const dataAt = fixture.indexOf('data') + 8;
  const data = fixture.subarray(dataAt, dataAt + samples * 2);
  return Buffer.concat([pcm16MonoHeader(data.length / 2, 16_000), data]);
}
