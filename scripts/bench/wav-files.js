/** The bench's inputs: 16 kHz 16-bit mono WAVs of a tone, written once and copied. */
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pcm16MonoHeader, toPcm16 } from '../../dist/audio/wav-encode.js';

const RATE = 16000;

/** A 16-bit mono WAV of `seconds` of a quiet 220 Hz tone (the project's own WAV writer, from dist/). */
export function toneWav(seconds) {
  const samples = new Float32Array(Math.round(seconds * RATE));
  for (let i = 0; i < samples.length; i++) samples[i] = 0.09 * Math.sin((2 * Math.PI * 220 * i) / RATE);
  return Buffer.concat([pcm16MonoHeader(samples.length, RATE), toPcm16(samples)]);
}

/**
 * Writes `count` copies of one WAV of `seconds` under `dir`, 1,000 to a sub-folder (as archives are
 * laid out); copies, not hard links, so that no client may take two of them for one file. Returns
 * the paths relative to `dir`.
 */
export async function writeWavFiles(dir, count, seconds) {
  const first = join(dir, 'source.wav.tmp');
  await mkdir(dir, { recursive: true });
  await writeFile(first, toneWav(seconds));
  const names = [];
  const perFolder = 1000;
  for (let folder = 0; folder * perFolder < count; folder++) {
    const sub = `d${String(folder).padStart(4, '0')}`;
    await mkdir(join(dir, sub), { recursive: true });
    const batch = [];
    for (let i = folder * perFolder; i < Math.min(count, (folder + 1) * perFolder); i++) {
      const name = `${sub}/f${String(i).padStart(6, '0')}.wav`;
      names.push(name);
      batch.push(copyFile(first, join(dir, name)));
    }
    await Promise.all(batch);
  }
  const { rm } = await import('node:fs/promises');
  await rm(first);
  return names;
}
