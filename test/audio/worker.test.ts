import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as fromSource from '../../src/audio/index.js';
import { fixture, tempDirPerTest } from '../helpers/cli.js';
import { expectFileBytes } from '../helpers/same-bytes.js';

const distIndex = new URL('../../dist/audio/index.js', import.meta.url);
const distWorker = new URL('../../dist/audio/worker.js', import.meta.url);
const params = { seed: 11, gender: 'opposite', age: 'senior-adult' };

const scratch = tempDirPerTest('vredact-audio-worker-');
let counter = 0;

type AudioModule = typeof fromSource;

async function sameAsInProcess(mod: AudioModule, input: string): Promise<void> {
  const a = join(scratch.path, `worker-${counter}.wav`);
  const b = join(scratch.path, `inproc-${counter++}.wav`);
  const viaWorker = await mod.runRedactionInWorker(input, a, params);
  const inProcess = await mod.redactAudioFile(input, b, params);
  expect(viaWorker).toEqual(inProcess);
  await expectFileBytes(a, await readFile(b));
}

async function rejectsWithDecodeError(mod: AudioModule): Promise<void> {
  const err = await mod
    .runRedactionInWorker(fixture('not-audio.wav'), join(scratch.path, 'never.wav'), params)
    .then(
      () => null,
      (e: unknown) => e,
    );
  expect(err).toBeInstanceOf(mod.AudioDecodeError);
  expect((err as Error).message).toBe('not a WAV or MP3 file');
  expect(existsSync(join(scratch.path, 'never.wav'))).toBe(false);
}

describe('runRedactionInWorker from the TypeScript sources (in-process fallback)', () => {
  it('produces the same file as redactAudioFile', async () => {
    await sameAsInProcess(fromSource, fixture('speech-cbr.mp3'));
  });

  it('rejects undecodable input with AudioDecodeError', async () => {
    await rejectsWithDecodeError(fromSource);
  });

  it('has no compiled worker script beside the sources, hence the fallback', async () => {
    const client = await import('../../src/audio/worker-client.js');
    expect(client.workerScript()).toBeNull();
  });
});

// The real worker thread needs the compiled worker.js: `npm test` builds dist/ first (pretest).
describe.skipIf(!existsSync(fileURLToPath(distWorker)))(
  'runRedactionInWorker from dist/ (worker thread)',
  () => {
    it('produces the same file as the in-process run', async () => {
      const mod = (await import(distIndex.href)) as AudioModule;
      await sameAsInProcess(mod, fixture('speech-vbr-xing.mp3'));
    });

    it('rebuilds AudioDecodeError on the calling side', async () => {
      const mod = (await import(distIndex.href)) as AudioModule;
      await rejectsWithDecodeError(mod);
    });

    it('finds its compiled worker script (so the thread path, not the fallback, is what runs)', async () => {
      const client = (await import(new URL('../../dist/audio/worker-client.js', import.meta.url).href)) as {
        workerScript(): URL | null;
      };
      expect(client.workerScript()?.href).toBe(distWorker.href);
    });
  },
);
