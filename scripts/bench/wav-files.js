/** The bench's inputs: 16 kHz 16-bit mono WAVs of a tone, written once and copied. */
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const RATE = 16000;

/** A 16-bit mono WAV of `seconds` of a quiet 220 Hz tone. */
export function toneWav(seconds) {
  const samples = Math.round(seconds * RATE);
  const data = samples * 2;
  const wav = Buffer.alloc(44 + data);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + data, 4);
  wav.write('WAVEfmt ', 8, 'ascii');
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(RATE, 24);
  wav.writeUInt32LE(RATE * 2, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(data, 40);
  for (let i = 0; i < samples; i++) {
    wav.writeInt16LE(Math.round(3000 * Math.sin((2 * Math.PI * 220 * i) / RATE)), 44 + i * 2);
  }
  return wav;
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
