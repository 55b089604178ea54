/**
 * An upload whose answer was lost: a gateway in front of the service answers 504 Gateway Time-out
 * to a long recording's upload, while the service goes on and makes its job (or, in one variant,
 * never got it). The run looks for the job by the upload's name before it ends: found, it is
 * collected in the same run; not found, the file fails as before, its journal keeping `uploading`,
 * and it is never sent again in that run. Before, every such file took a second run (a night later).
 */
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectStderr, fixture, isolatedEnv, runCli } from '../helpers/cli.js';
import { type CleanRoomRun as Run, withCleanRoom } from '../helpers/clean-room-run.js';
import type { CleanRoomOptions, CleanRoomService } from '../helpers/clean-room-server.js';
import { isWav, jsonLines, until } from '../helpers/e2e.js';

/** The recording lasts about 7 s: longer than this, it becomes an asynchronous job, which the gateway times out. */
const SYNC_LIMIT_SECONDS = 5;
const RUN_GUARD_MS = 60_000;
const TEST_GUARD = { timeout: 180_000 } as const;
const UPLOAD_PATH = '/api/speech-to-speech-biometric-redaction';

/** A clean-room service behind a gateway that times out, and a folder, removed after the test. */
function behindGateway(
  gateway504: NonNullable<CleanRoomOptions['gateway504']>,
  test: (run: Run) => Promise<void>,
): Promise<void> {
  return withCleanRoom(
    { syncLimitSeconds: SYNC_LIMIT_SECONDS, listSourceFile: true, gateway504 },
    test,
    'vredact-lost-answer-',
  );
}

const posts = (service: CleanRoomService): number =>
  service.received.filter((request) => request.method === 'POST' && request.path === UPLOAD_PATH).length;

const listings = (service: CleanRoomService): number =>
  service.received.filter((request) => request.method === 'GET' && request.path === '/api/jobs').length;

async function journalEvents(dir: string): Promise<Array<Record<string, unknown>>> {
  return jsonLines(await readFile(join(dir, 'out', '.vredact', 'journal.jsonl'), 'utf8'));
}

const LOOKED_FOR_NEXT =
  /the service answered 504 Gateway Time-?out.*; the service may have taken it: the next run looks for its job before sending again$/;

/** A run over `input` whose job is not found: failed, left for the next run's look, one upload, one listing. */
async function expectLeftForTheNextRun({ service, vredact }: Omit<Run, 'dir'>, input: string): Promise<void> {
  const run = await vredact(['redact', input, '-o', 'out', '--json']);
  expect(run.exitCode, String(run.stderr) + String(run.stdout)).toBe(1);
  const [line] = jsonLines(run.stdout);
  expect(line).toMatchObject({ status: 'failed' });
  expect(String(line?.reason)).toMatch(LOOKED_FOR_NEXT);
  expect(posts(service)).toBe(1);
  expect(listings(service)).toBe(1);
}

describe.concurrent('vredact redact: an upload whose answer was lost (a gateway 504)', TEST_GUARD, () => {
  it('finds the job the service made in the same run, collects and verifies it: one upload, done, exit 0', () =>
    behindGateway('after-taking', async ({ service, vredact, dir }) => {
      const input = fixture('speech-16bit.wav');
      const run = await vredact(['redact', input, '-o', 'out', '--json']);
      expect(run.exitCode, String(run.stderr) + String(run.stdout)).toBe(0);
      const [jobId] = service.jobIds();
      expect(jsonLines(run.stdout)[0]).toMatchObject({ status: 'done', jobId });
      expect(posts(service)).toBe(1);
      // One listing: its look a few seconds after the 504, when the rest of the run was done.
      expect(listings(service)).toBe(1);
      const output = join(dir, 'out', 'speech-16bit.wav');
      expect(await isWav(output)).toBe(true);
      expect(await readFile(output)).toEqual(service.resultOf(jobId!));
      const events = await journalEvents(dir);
      // Its `uploading` line again, saying the answer was lost, before the look (what `status` reads).
      expect(events.map((line) => line.event)).toEqual(['uploading', 'uploading', 'submitted', 'done']);
      expect(events[1]).toMatchObject({ uploadName: events[0]?.uploadName, answerLost: true });
      expect(events[2]).toMatchObject({ jobId, uploadName: events[0]?.uploadName, reconciled: true });

      const again = await vredact(['redact', input, '-o', 'out', '--json']);
      expect(again.exitCode).toBe(0);
      expect(jsonLines(again.stdout)[0]).toMatchObject({ status: 'skipped' });
      expect(posts(service)).toBe(1);
    }));

  it('with --no-wait, journals the job found as submitted (exit 0), and the next run collects it unsent', () =>
    behindGateway('after-taking', async ({ service, vredact, dir }) => {
      const input = fixture('speech-16bit.wav');
      const run = await vredact(['redact', input, '-o', 'out', '--json', '--no-wait']);
      expect(run.exitCode, String(run.stderr) + String(run.stdout)).toBe(0);
      const [jobId] = service.jobIds();
      expect(jsonLines(run.stdout)[0]).toMatchObject({ status: 'pending', jobId });
      expect((await journalEvents(dir)).map((line) => line.event)).toEqual([
        'uploading',
        'uploading',
        'submitted',
      ]);

      const later = await vredact(['redact', input, '-o', 'out', '--json']);
      expect(later.exitCode, String(later.stderr) + String(later.stdout)).toBe(0);
      expect(jsonLines(later.stdout)[0]).toMatchObject({ status: 'done', jobId });
      expect(posts(service)).toBe(1);
      expect(await readFile(join(dir, 'out', 'speech-16bit.wav'))).toEqual(service.resultOf(jobId!));
    }));

  it('when its job is not listed by the end of the run: fails as before, `uploading` kept, never sent again in the run; the next run finds it once listed', () =>
    behindGateway('after-taking', async ({ service, vredact, dir }) => {
      const input = fixture('speech-16bit.wav');
      service.listJobs(false);
      await expectLeftForTheNextRun({ service, vredact }, input);
      expect((await journalEvents(dir)).map((event) => event.event)).toEqual(['uploading', 'uploading']);

      service.listJobs(true);
      const later = await vredact(['redact', input, '-o', 'out', '--json']);
      expect(later.exitCode, String(later.stderr) + String(later.stdout)).toBe(0);
      expect(jsonLines(later.stdout)[0]).toMatchObject({ status: 'done', jobId: service.jobIds()[0] });
      expect(posts(service)).toBe(1);
    }));

  it('when the service never got it: one upload and one listing in the run; the next run looks first, then sends it again', () =>
    behindGateway('before-taking', async ({ service, vredact, dir }) => {
      const input = fixture('speech-16bit.wav');
      await expectLeftForTheNextRun({ service, vredact }, input);
      expect(service.jobIds()).toEqual([]);
      expect((await journalEvents(dir)).map((event) => event.event)).toEqual(['uploading', 'uploading']);

      const later = await vredact(['redact', input, '-o', 'out', '--json']);
      expect(later.exitCode).toBe(1);
      // Its look-up before anything is sent, then the upload, then the look for that upload's job.
      const requests = service.received
        .slice(2)
        .map((request) => `${request.method} ${request.path}`)
        .filter((request) => request === `POST ${UPLOAD_PATH}` || request === 'GET /api/jobs');
      expect(requests).toEqual(['GET /api/jobs', `POST ${UPLOAD_PATH}`, 'GET /api/jobs']);
    }));

  it('many uploads answered 504 share their looks: each sent once, fewer listings than files', () =>
    behindGateway('before-taking', async ({ service, vredact, dir }) => {
      const files = 8;
      await mkdir(join(dir, 'in'));
      for (let i = 0; i < files; i++)
        await copyFile(fixture('speech-16bit.wav'), join(dir, 'in', `call-${i}.wav`));
      const run = await vredact(['redact', 'in', '-o', 'out', '--json', '-c', '4']);
      expect(run.exitCode, String(run.stderr)).toBe(1);
      const lines = jsonLines(run.stdout).filter((line) => line.status !== undefined);
      expect(lines).toHaveLength(files);
      for (const line of lines) expect(String(line.reason)).toMatch(LOOKED_FOR_NEXT);
      expect(posts(service)).toBe(files);
      // A look a few seconds after the failures, shared, and one at the end: never one per file.
      expect(listings(service)).toBeGreaterThanOrEqual(1);
      expect(listings(service)).toBeLessThan(files);
    }));

  it('a Ctrl-C during the look ends it at once: exit 130, the file pending, `uploading` kept', () =>
    behindGateway('before-taking', async ({ service, dir }) => {
      const env = isolatedEnv(join(dir, '.config'), {
        VREDACT_BASE_URL: service.baseUrl,
        VREDACT_TOKEN: service.token,
      });
      const child = runCli(['redact', fixture('speech-16bit.wav'), '-o', 'out', '--json', '--verbose'], {
        env,
        cwd: dir,
        timeout: RUN_GUARD_MS,
      });
      const stderr = collectStderr(child);
      await until(async () => stderr().includes("its upload's answer was lost; looking for its job"));
      child.kill('SIGINT');
      const run = await child;
      expect(run.exitCode, stderr()).toBe(130);
      const [line] = jsonLines(run.stdout);
      expect(line).toMatchObject({ status: 'pending' });
      expect(String(line?.reason)).toMatch(/^not finished: interrupted while its job was looked for: /);
      expect(posts(service)).toBe(1);
      expect(listings(service)).toBe(0);
      expect((await journalEvents(dir)).map((event) => event.event)).toEqual(['uploading', 'uploading']);
    }));
});
