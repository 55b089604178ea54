/**
 * The sandbox redacts a few recordings at once, however many arrive together: each redaction is a
 * worker thread of its own, and 64 synchronous uploads at once took 1.17 GB and 135 threads.
 * Build first: `npm run build` (the built sandbox runs its redactions on worker threads).
 */
import { readdir } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { expect, test } from 'vitest';
import { makeWav } from '../helpers/mp3.js';
import { startSandboxProcess } from '../helpers/sandbox.js';

const threads = async (pid: number) => (await readdir(`/proc/${pid}/task`)).length;

test.skipIf(process.platform !== 'linux')(
  'twelve uploads at once are all answered, with at most a few redactions running at a time',
  async () => {
    const sandbox = await startSandboxProcess();
    try {
      const pid = sandbox.process.pid as number;
      const idle = await threads(pid);
      const wav = makeWav(20, 16000);
      let most = idle;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          most = Math.max(most, await threads(pid).catch(() => 0));
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })();
      const answers = await Promise.all(
        Array.from({ length: 12 }, async (_, i) => {
          const form = new FormData();
          form.append('source_audio', new Blob([wav], { type: 'audio/wav' }), `call-${i}.wav`);
          const response = await fetch(`${sandbox.baseUrl}/api/speech-to-speech-biometric-redaction`, {
            method: 'POST',
            headers: { authorization: `Bearer ${sandbox.token}` },
            body: form,
          });
          return { status: response.status, bytes: (await response.arrayBuffer()).byteLength };
        }),
      );
      sampling = false;
      await sampler;
      expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(200));
      // 20 s of 16 kHz 16-bit mono: 640,000 bytes of audio and a header.
      expect(answers.every((answer) => answer.bytes === 640_044)).toBe(true);
      // One thread of slack beyond the limit: a loaded Node.js 24 run once sampled 3 more threads than
      // idle for a limit of 2 (which thread, /proc does not say; a worker's slot is freed only at its
      // 'exit'). The defect this guards against was every upload a worker at once: 64 took 135 threads.
      expect(most - idle).toBeLessThanOrEqual(Math.max(2, availableParallelism()) + 1);
    } finally {
      await sandbox.stop();
    }
  },
);
