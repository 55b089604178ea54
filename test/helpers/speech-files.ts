/** The speech fixture as a batch's inputs, and as a scripted service's answer to each upload. */
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { FIXTURES } from './cli.js';

const SPEECH = join(FIXTURES, 'speech-16bit.wav');

/** `<dir>/in/call-<i>.wav`, `count` copies of the speech fixture; returns the folder. */
export async function speechInputs(dir: string, count: number): Promise<string> {
  const folder = join(dir, 'in');
  await mkdir(folder, { recursive: true });
  for (let i = 0; i < count; i++) await copyFile(SPEECH, join(folder, `call-${i}.wav`));
  return folder;
}

/** Answers an upload with the fixture's own bytes: a whole WAV as long as each input. */
export async function answerWithSpeech(
  res: ServerResponse,
  headers: Record<string, string> = {},
): Promise<void> {
  const wav = await readFile(SPEECH);
  res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length, ...headers });
  res.end(wav);
}
