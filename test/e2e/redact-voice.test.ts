import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { decodeToWorkingRate, WORKING_RATE } from '../../src/audio/index.js';
import { averageSpectrum, medianVoicedF0, readPcm16Wav, spectralCentroid } from '../helpers/signal.js';
import { FIXTURES, isolatedEnv, runCli, tempDir } from '../helpers/cli.js';
import { framesFor, writeMp3 } from '../helpers/mp3.js';
import { startSandboxProcess } from '../helpers/sandbox.js';

type Sandbox = Awaited<ReturnType<typeof startSandboxProcess>>;

let sandbox: Sandbox;
let work: Awaited<ReturnType<typeof tempDir>>;

const env = () =>
  isolatedEnv(join(work.path, 'config'), { VREDACT_BASE_URL: sandbox.baseUrl, VREDACT_TOKEN: sandbox.token });

beforeAll(async () => {
  work = await tempDir();
  sandbox = await startSandboxProcess(['--sync-limit', '30']);
});

afterAll(async () => {
  await sandbox?.stop();
  await work?.cleanup();
});

describe('the real CLI against the sandbox changes the voice measurably', () => {
  test.each(['speech-16bit.wav', 'speech-cbr.mp3'])(
    '%s: the output decodes, keeps the duration and has another pitch and timbre',
    async (name) => {
      const out = join(work.path, `out-${name}`);
      const result = await runCli(['redact', join(FIXTURES, name), '-o', out, '--gender', 'opposite'], {
        env: env(),
      });
      expect(result.exitCode).toBe(0);
      const output = await readPcm16Wav(join(out, name.replace(/\.(wav|mp3)$/, '.wav')));
      expect(output.formatTag).toBe(1);
      expect(output.channels).toBe(1);
      expect(output.sampleRate).toBe(16000);
      expect(output.samples.every((x) => Number.isFinite(x))).toBe(true);

      const input = (await decodeToWorkingRate(join(FIXTURES, name))).samples;
      expect(WORKING_RATE).toBe(16000);
      expect(Math.abs(output.samples.length - input.length) / 16000).toBeLessThan(0.025);

      // gender=opposite: the median F0 moves by 1.5 one way or the other (espeak's voice is low: up).
      const ratio = medianVoicedF0(output.samples, 16000) / medianVoicedF0(input, 16000);
      expect(Math.min(Math.abs(ratio - 1.5), Math.abs(ratio - 1 / 1.5))).toBeLessThan(0.075);
      // The default age (young-adult, α = 0.8) moves the low formants: the spectrum's shape changes.
      const centroid = (x: Float32Array) => spectralCentroid(averageSpectrum(x), 16000, 100, 4000);
      expect(Math.abs(centroid(output.samples) / centroid(input) - 1)).toBeGreaterThan(0.1);
    },
  );
});

describe('the 60-minute limit is judged locally, on an exact count', () => {
  test('a 61-minute MP3 of 3.6 MB is rejected without upload; a 59-minute one is sent', async () => {
    const dir = join(work.path, 'hour');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(dir, { recursive: true });
    const longBytes = await writeMp3(join(dir, 'long.mp3'), { frames: framesFor(61 * 60) });
    await writeMp3(join(dir, 'almost.mp3'), { frames: framesFor(59 * 60) });
    expect(longBytes).toBeGreaterThan(3_500_000);
    expect(longBytes).toBeLessThan(3_700_000);

    const before = (await sandbox.stats()).uploads;
    const result = await runCli(['redact', dir, '-o', join(work.path, 'hour-out'), '--no-wait', '--json'], {
      env: env(),
    });
    const lines = String(result.stdout)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { input?: string; status?: string; reason?: string });
    const byName = Object.fromEntries(
      lines.filter((l) => l.input).map((l) => [l.input?.split('/').pop(), l]),
    );
    expect(byName['long.mp3']?.status).toBe('rejected');
    expect(byName['long.mp3']?.reason).toMatch(/60|3600|long/);
    expect(byName['almost.mp3']?.status).toBe('pending');
    expect((await sandbox.stats()).uploads - before).toBe(1);
    expect(result.exitCode).toBe(1);
  });
});
