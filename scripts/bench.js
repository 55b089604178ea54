#!/usr/bin/env node
/**
 * Speed of the sandbox's audio engine: `npm run bench` (after `npm run build`).
 *
 * Builds 60 s of speech by repeating the 7 s fixture, writes it as a 16 kHz WAV
 * and as a 32 kHz MP3 (frames of the CBR fixture repeated) in a temp folder,
 * then times decode + voice change + WAV encode on this thread (one core).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const distIndex = new URL('../dist/audio/index.js', import.meta.url);
let audio;
try {
  audio = await import(distIndex.href);
} catch {
  console.error('bench: dist/audio is missing; run `npx tsc -p tsconfig.build.json` (npm run build) first.');
  process.exit(1);
}
const { decodeToWorkingRate, redactAudioFile } = audio;
const { pcm16MonoHeader, toPcm16 } = await import(
  new URL('../dist/audio/wav-encode.js', import.meta.url).href
);

const fixture = (name) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const RATE = 16000;

function wav16(samples) {
  return Buffer.concat([pcm16MonoHeader(samples.length, RATE), toPcm16(samples)]);
}

async function timed(label, seconds, fn) {
  const t0 = performance.now();
  await fn();
  const s = (performance.now() - t0) / 1000;
  console.log(
    `${label}: ${seconds.toFixed(1)} s of audio in ${s.toFixed(2)} s = ${Math.round(seconds / s)}× real time`,
  );
  return s;
}

const dir = await mkdtemp(join(tmpdir(), 'vredact-bench-'));
try {
  const speech = (await decodeToWorkingRate(fixture('speech-16bit.wav'))).samples;
  const long = new Float32Array(SECONDS * RATE);
  for (let i = 0; i < long.length; i += speech.length) long.set(speech.subarray(0, long.length - i), i);
  const wavPath = join(dir, 'speech-60s.wav');
  await writeFile(wavPath, wav16(long));

  // An MP3 of about the same length: the CBR fixture's audio frames repeated (216 bytes each, 36 ms).
  const cbr = await readFile(fixture('speech-cbr.mp3'));
  const frames = cbr.subarray(216);
  const copies = Math.ceil(SECONDS / 7);
  const mp3Path = join(dir, 'speech-long.mp3');
  await writeFile(mp3Path, Buffer.concat(Array.from({ length: copies }, () => frames)));
  const mp3Seconds = (copies * (frames.length / 216) * 1152) / 32000;

  // Warm-up so that JIT compilation is not billed to the first case.
  await redactAudioFile(fixture('speech-16bit.wav'), join(dir, 'warm.wav'), { seed: 1, gender: 'opposite' });

  const out = join(dir, 'out.wav');
  // The headline figure: decode + pitch shift + McAdams warp + encode, from a WAV.
  await timed('voice change', SECONDS, () =>
    redactAudioFile(wavPath, out, { seed: 1, gender: 'opposite', age: 'young-adult' }),
  );
  console.log('\nbreakdown (same 60 s unless noted):');
  await timed('  decode only, MP3 32 kHz', mp3Seconds, () => decodeToWorkingRate(mp3Path));
  await timed('  formant warp only (age=young-adult)', SECONDS, () =>
    redactAudioFile(wavPath, out, { seed: 1, age: 'young-adult' }),
  );
  await timed('  with F0 contour (emotion=happy, gender=f)', SECONDS, () =>
    redactAudioFile(wavPath, out, { seed: 1, gender: 'f', emotion: 'happy' }),
  );
  await timed('  from MP3 (gender=opposite)', mp3Seconds, () =>
    redactAudioFile(mp3Path, out, { seed: 1, gender: 'opposite' }),
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
