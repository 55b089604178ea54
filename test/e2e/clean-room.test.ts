/**
 * vredact against a service written from the interface alone (test/helpers/clean-room-server.ts),
 * whose every "not shown" is answered otherwise than our sandbox answers it: the client must work
 * with any reasonable answer. One test per variant and command group.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture } from '../helpers/cli.js';
import { type CleanRoomRun as Run, withCleanRoom as withCleanRoomRun } from '../helpers/clean-room-run.js';
import type { CleanRoomOptions, CleanRoomService } from '../helpers/clean-room-server.js';
import { isWav, jsonLines, listFiles } from '../helpers/e2e.js';

/** About 7 s each but the stereo WAV (3.5 s): with a 5-s limit, three are asynchronous and one is not. */
const INPUTS = ['speech-16bit.wav', 'speech-cbr.mp3', 'speech-vbr-xing.mp3', 'speech-24bit-stereo.wav'];
const SYNC_LIMIT_SECONDS = 5;

const TEST_GUARD = { timeout: 240_000 } as const;

const VARIANTS: ReadonlyArray<[string, CleanRoomOptions]> = [
  ['UUID ids, durations in milliseconds, chunked, Connection: close, link on another port', {}],
  [
    'hex ids, durations in seconds, lowercase states, path-like file names, link on the same port, 429 with Retry-After in seconds, 200 audio/wave',
    {
      jobIdStyle: 'hex',
      durationUnit: 'seconds',
      states: ['pending', 'processing', 'done'],
      fileNameStyle: 'key',
      download: 'same-port',
      throttle: 'seconds',
      syncStatus: 200,
      wavType: 'audio/wave',
      asyncStatus: 201,
    },
  ],
  [
    'dashed ids, the source listed before the result, opaque file names, 429 with Retry-After as a date',
    { jobIdStyle: 'dashed', listSourceFile: true, fileNameStyle: 'opaque', throttle: 'date' },
  ],
  [
    'Content-Length framing, keep-alive, three looks per phase',
    {
      chunked: false,
      closeEveryOther: false,
      looksPerPhase: 3,
      states: ['Queued', 'Processing', 'Available'],
    },
  ],
];

/** A clean-room service and a folder for one test, removed after it whatever happens. */
function withCleanRoom(options: CleanRoomOptions, test: (run: Run) => Promise<void>): Promise<void> {
  return withCleanRoomRun({ syncLimitSeconds: SYNC_LIMIT_SECONDS, ...options }, test);
}

describe.concurrent.each(VARIANTS)('against a clean-room service: %s', TEST_GUARD, (_name, options) => {
  it('redacts WAV and MP3, sync and async, and a re-run sends nothing again', () =>
    withCleanRoom(options, async ({ service, vredact, dir }) => {
      const inputs = INPUTS.map((name) => fixture(name));
      const first = await vredact(['redact', ...inputs, '-o', 'out', '--json']);
      expect(first.stderr).not.toMatch(/error/i);
      expect(first.exitCode).toBe(0);
      expect(jsonLines(first.stdout).filter((line) => line.status === 'done')).toHaveLength(INPUTS.length);
      const outputs = INPUTS.map((name) => join(dir, 'out', name.replace(/\.\w+$/, '.wav')));
      for (const output of outputs) expect(await isWav(output)).toBe(true);
      expect(service.uploads()).toHaveLength(INPUTS.length);

      const again = await vredact(['redact', ...inputs, '-o', 'out']);
      expect(again.exitCode).toBe(0);
      expect(service.uploads()).toHaveLength(INPUTS.length);
      const status = await vredact(['status', '-o', 'out', '--json']);
      expect(status.exitCode).toBe(0);
      expect((JSON.parse(String(status.stdout)) as { counts: { done: number } }).counts.done).toBe(
        INPUTS.length,
      );
    }));

  it('lists jobs, reads a job content with its duration, and downloads its result', () =>
    withCleanRoom(options, async ({ service, vredact, dir }) => {
      const sent = await vredact(['redact', fixture('speech-16bit.wav'), '-o', 'out']);
      expect(sent.exitCode).toBe(0);
      const [jobId = ''] = service.jobIds();

      const table = await vredact(['jobs', 'list']);
      expect(table.exitCode, String(table.stderr)).toBe(0);
      expect(table.stdout).toContain(jobId);
      const listed = await vredact(['jobs', 'list', '--json']);
      expect(listed.exitCode).toBe(0);
      expect(
        (JSON.parse(String(listed.stdout)) as Array<{ job_id: string }>).map((job) => job.job_id),
      ).toEqual(service.jobIds());

      const content = await vredact(['jobs', 'content', jobId]);
      expect(content.exitCode).toBe(0);
      // The 7-s recording reads as 7 s whatever unit the service lists it in.
      expect(
        String(content.stdout)
          .split('\n')
          .filter((line) => line.includes('\t0:07\t')).length,
      ).toBeGreaterThan(0);
      expect(content.stdout).not.toMatch(/\t\d+:\d\d:\d\d\t|\t[1-9]\d*:\d\d\t/);

      const download = await vredact(['download', jobId, '-o', 'dl']);
      expect(download.exitCode).toBe(0);
      const downloaded = (await listFiles(join(dir, 'dl'))).filter((name) => name.endsWith('.wav'));
      const results = await Promise.all(downloaded.map((name) => readFile(join(dir, 'dl', name))));
      expect(results.some((bytes) => bytes.equals(service.resultOf(jobId) ?? Buffer.alloc(0)))).toBe(true);
    }));
});

/** The requests of the jobs area's listing that the service received. */
/**
 * One recording redacted through the service's one job, its result saved as it was sent; a re-run
 * skips it, with no second upload.
 */
async function redactedByItsJobThenSkipped({ service, vredact, dir }: Run): Promise<void> {
  const input = fixture('speech-16bit.wav');
  const first = await vredact(['redact', input, '-o', 'out', '--json']);
  expect(first.exitCode, String(first.stderr) + String(first.stdout)).toBe(0);
  expect(jsonLines(first.stdout)[0]).toMatchObject({ status: 'done', jobId: service.jobIds()[0] });
  expect(service.uploads()).toHaveLength(1);
  expect(await readFile(join(dir, 'out', 'speech-16bit.wav'))).toEqual(
    service.resultOf(service.jobIds()[0]!),
  );
  const again = await vredact(['redact', input, '-o', 'out', '--json']);
  expect(again.exitCode).toBe(0);
  expect(jsonLines(again.stdout)[0]).toMatchObject({ status: 'skipped' });
  expect(service.uploads()).toHaveLength(1);
}

const listings = (service: CleanRoomService): number =>
  service.received.filter((request) => request.method === 'GET' && request.path === '/api/jobs').length;

describe.concurrent(
  'against a clean-room service whose asynchronous answer names no job, but whose content names the upload',
  TEST_GUARD,
  () => {
    it('looks for its job by its upload name until its content lists it, and collects it in the same run', () =>
      // Three looks per phase: the job's content names nothing until it has been looked at six times.
      withCleanRoom(
        { asyncBody: 'bare', listSourceFile: true, looksPerPhase: 3 },
        async ({ service, vredact, dir }) => {
          await redactedByItsJobThenSkipped({ service, vredact, dir });
          expect(listings(service)).toBeGreaterThanOrEqual(2);
        },
      ));

    it('leaves it pending, not failed, when its job is not listed within --wait-timeout; the next run collects it unsent', () =>
      withCleanRoom({ asyncBody: 'bare', listSourceFile: true }, async ({ service, vredact, dir }) => {
        const input = fixture('speech-16bit.wav');
        service.listJobs(false);
        const first = await vredact(['redact', input, '-o', 'out', '--json', '--wait-timeout', '3s']);
        expect(first.exitCode, String(first.stderr) + String(first.stdout)).toBe(1);
        const [line] = jsonLines(first.stdout);
        expect(line).toMatchObject({ status: 'pending' });
        expect(line?.reason).toMatch(
          /^accepted by the service without naming its job, not found among its jobs after 0:03 \(--wait-timeout\); the next run looks for it before sending again$/,
        );
        // How many rounds fit in the 3-s wait depends on the machine's load (one, with three copies of
        // this file on 2 cores): once a run over many rounds is the unit test's
        // (test/redact/accepted-jobs.test.ts).
        expect(listings(service)).toBeGreaterThanOrEqual(1);
        expect(service.uploads()).toHaveLength(1);
        const status = await vredact(['status', '-o', 'out', '--json']);
        expect((JSON.parse(String(status.stdout)) as { counts: { failed: number } }).counts.failed).toBe(0);

        service.listJobs(true);
        const again = await vredact(['redact', input, '-o', 'out', '--json']);
        expect(again.exitCode, String(again.stderr) + String(again.stdout)).toBe(0);
        expect(jsonLines(again.stdout)[0]).toMatchObject({ status: 'done' });
        expect(service.uploads()).toHaveLength(1);
        expect(await readFile(join(dir, 'out', 'speech-16bit.wav'))).toEqual(
          service.resultOf(service.jobIds()[0]!),
        );
      }));

    it('with --no-wait, leaves it pending after one listing of the jobs (the run tells the service from a collector of POSTs), as a submitted job; the next run collects it', () =>
      withCleanRoom({ asyncBody: 'bare', listSourceFile: true }, async ({ service, vredact }) => {
        const input = fixture('speech-16bit.wav');
        const first = await vredact(['redact', input, '-o', 'out', '--json', '--no-wait']);
        expect(first.exitCode, String(first.stderr) + String(first.stdout)).toBe(0);
        expect(jsonLines(first.stdout)[0]).toMatchObject({
          status: 'pending',
          reason:
            'accepted by the service without naming its job; the next run looks for it before sending again',
        });
        expect(listings(service)).toBe(1);
        expect(service.uploads()).toHaveLength(1);

        const again = await vredact(['redact', input, '-o', 'out', '--json']);
        expect(again.exitCode, String(again.stderr) + String(again.stdout)).toBe(0);
        expect(jsonLines(again.stdout)[0]).toMatchObject({ status: 'done' });
        expect(service.uploads()).toHaveLength(1);
      }));

    it('warns once that the listing failed while it looked for its job, listing after listing, and collects it once one answers', () =>
      withCleanRoom({ asyncBody: 'bare', listSourceFile: true }, async ({ service, vredact, dir }) => {
        const input = fixture('speech-16bit.wav');
        service.failListings(2);
        // No retries within a listing: each 500 fails a round of the look-up.
        const run = await vredact(['redact', input, '-o', 'out', '--json', '--max-retries', '0', '-q']);
        expect(run.exitCode, String(run.stderr) + String(run.stdout)).toBe(0);
        expect(jsonLines(run.stdout)[0]).toMatchObject({ status: 'done', jobId: service.jobIds()[0] });
        expect(listings(service)).toBeGreaterThanOrEqual(3);
        const warnings = String(run.stderr)
          .split('\n')
          .filter((line) => line.startsWith('warning: '));
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(
          /^warning: looking for uploads accepted without a job id: listing jobs: .*500.*; trying again each round, until found or --wait-timeout \(not told again this run\)$/,
        );
        expect(service.uploads()).toHaveLength(1);
        expect(await readFile(join(dir, 'out', 'speech-16bit.wav'))).toEqual(
          service.resultOf(service.jobIds()[0]!),
        );
      }));

    it('warns once that more recent jobs than it reads are listed, and names it in the reason of the upload it did not find', () =>
      withCleanRoom({ asyncBody: 'bare', listSourceFile: true }, async ({ service, vredact }) => {
        const input = fixture('speech-16bit.wav');
        // 500 jobs made just before the upload: its own, the newest, is past the 500 oldest read.
        const made = await Promise.all(
          Array.from({ length: 500 }, () =>
            fetch(`${service.baseUrl}/api/jobs`, {
              method: 'POST',
              headers: { authorization: `Bearer ${service.token}` },
            }).then((answer) => answer.status),
          ),
        );
        expect(new Set(made)).toEqual(new Set([201]));
        const run = await vredact(['redact', input, '-o', 'out', '--json', '--wait-timeout', '5s']);
        expect(run.exitCode, String(run.stderr) + String(run.stdout)).toBe(1);
        const capped = String(run.stderr)
          .split('\n')
          .filter((line) => line.includes('only the 500 oldest'));
        expect(capped).toEqual([
          'warning: looking for uploads accepted without a job id: only the 500 oldest of the 501 recent jobs are read; an upload whose job is among the others is not found: it stays pending, and the next run looks for it before sending it again (not told again this run)',
        ]);
        // How many rounds fit in the wait depends on the machine's load: once a run over many rounds
        // is the unit test's (test/redact/accepted-jobs.test.ts).
        expect(listings(service)).toBeGreaterThanOrEqual(1);
        const [line] = jsonLines(run.stdout);
        expect(line).toMatchObject({
          status: 'pending',
          reason:
            'accepted by the service without naming its job, not found among its jobs after 0:05 (--wait-timeout); its last look: only the 500 oldest of the 501 recent jobs are read; the next run looks for it before sending again',
        });
        expect(service.uploads()).toHaveLength(1);
      }));
  },
);

/** The lines of the run's journal. */
async function journalOf(dir: string): Promise<Array<Record<string, unknown>>> {
  return jsonLines(await readFile(join(dir, 'out', '.vredact', 'journal.jsonl'), 'utf8'));
}

const redactionPosts = (service: CleanRoomService): number =>
  service.received.filter(
    (request) => request.method === 'POST' && request.path === '/api/speech-to-speech-biometric-redaction',
  ).length;

describe.concurrent.each([
  ['only in a Location header', 'location'],
  ['inside a {"data": {"id"}} envelope', 'envelope'],
] as const)(
  'against a clean-room service naming its job %s, with results named unrelated to the upload',
  TEST_GUARD,
  (_name, asyncBody) => {
    it('collects that job in the same run, journals its id, and a re-run sends nothing', () =>
      withCleanRoom({ asyncBody, fileNameStyle: 'opaque' }, async ({ service, vredact, dir }) => {
        const input = fixture('speech-16bit.wav');
        const first = await vredact(['redact', input, '-o', 'out', '--json']);
        expect(first.exitCode, String(first.stderr) + String(first.stdout)).toBe(0);
        const [jobId] = service.jobIds();
        expect(jobId).toBeDefined();
        expect(jsonLines(first.stdout)[0]).toMatchObject({ status: 'done', jobId });
        const output = join(dir, 'out', 'speech-16bit.wav');
        expect(await isWav(output)).toBe(true);
        expect(await readFile(output)).toEqual(service.resultOf(jobId!));
        const journal = await journalOf(dir);
        expect(journal.filter((line) => line.event === 'submitted')).toMatchObject([{ jobId }]);
        expect(journal.filter((line) => line.event === 'done')).toMatchObject([{ via: 'job', jobId }]);
        // Named by the answer, the job is never looked for among the jobs.
        expect(listings(service)).toBe(0);
        expect(redactionPosts(service)).toBe(1);

        const again = await vredact(['redact', input, '-o', 'out', '--json']);
        expect(again.exitCode, String(again.stderr) + String(again.stdout)).toBe(0);
        expect(jsonLines(again.stdout)[0]).toMatchObject({ status: 'skipped' });
        expect(redactionPosts(service)).toBe(1);
        expect(service.uploads()).toHaveLength(1);
      }));

    it('with --no-wait, journals the job it was given, and the next run collects it unsent', () =>
      withCleanRoom({ asyncBody, fileNameStyle: 'opaque' }, async ({ service, vredact, dir }) => {
        const input = fixture('speech-16bit.wav');
        const first = await vredact(['redact', input, '-o', 'out', '--json', '--no-wait']);
        expect(first.exitCode, String(first.stderr) + String(first.stdout)).toBe(0);
        const [jobId] = service.jobIds();
        expect((await journalOf(dir)).filter((line) => line.event === 'submitted')).toMatchObject([
          { jobId },
        ]);

        const again = await vredact(['redact', input, '-o', 'out', '--json']);
        expect(again.exitCode, String(again.stderr) + String(again.stdout)).toBe(0);
        expect(jsonLines(again.stdout)[0]).toMatchObject({ status: 'done', jobId });
        expect(await readFile(join(dir, 'out', 'speech-16bit.wav'))).toEqual(service.resultOf(jobId!));
        expect(redactionPosts(service)).toBe(1);
      }));
  },
);

describe.concurrent(
  'against a clean-room service whose asynchronous answer names no job, and whose content lists only a result named after the upload',
  TEST_GUARD,
  () => {
    it.each<[string, CleanRoomOptions]>([
      ['<stem>_redacted.wav', { asyncBody: 'bare' }],
      ['results/<key>/<stem>_redacted.wav', { asyncBody: 'bare', fileNameStyle: 'key' }],
    ])(
      '%s: finds its job by the upload name in it, collects it in the same run, and a re-run sends nothing',
      (_name, options) =>
        withCleanRoom(options, async ({ service, vredact, dir }) => {
          await redactedByItsJobThenSkipped({ service, vredact, dir });
        }),
    );
  },
);
