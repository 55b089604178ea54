/**
 * A service that writes its times without a zone, as its own local time (`2026-11-21T05:14:03`), and
 * a gateway in front of it that answers each asynchronous upload 504 once the service made its job.
 * The run looks for each job among the service's jobs made since the upload began. Read as UTC, the
 * times of a service west of UTC put its jobs hours before the upload: they were passed over, the
 * files failed, and the next run sent each again. What the service received tells: each file uploaded
 * once, each output its own job's result.
 */
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture } from '../helpers/cli.js';
import type { CleanRoomService } from '../helpers/clean-room-server.js';
import { type CleanRoomRun as Run, withCleanRoom } from '../helpers/clean-room-run.js';
import { isWav, jsonLines } from '../helpers/e2e.js';

const UPLOAD_PATH = '/api/speech-to-speech-biometric-redaction';
const TEST_GUARD = { timeout: 180_000 } as const;
/** Inputs of one length (about 7 s, asynchronous here) and three layouts, so that their results differ. */
const INPUTS: Record<string, string> = {
  'east.wav': 'speech-16bit.wav',
  'north.wav': 'speech-float.wav',
  'west.wav': 'speech-32bit.wav',
};

/** A service writing zone-less local times `minutesEast` of UTC, behind a gateway; removed after. */
function zonelessService(minutesEast: number, test: (run: Run) => Promise<void>): Promise<void> {
  const service = {
    syncLimitSeconds: 5,
    listSourceFile: true,
    gateway504: 'after-taking',
    timestamps: minutesEast,
  } as const;
  return withCleanRoom(
    service,
    async (run) => {
      await mkdir(join(run.dir, 'in'));
      for (const [name, source] of Object.entries(INPUTS))
        await copyFile(fixture(source), join(run.dir, 'in', name));
      await test(run);
    },
    'vredact-zoneless-',
  );
}

/** The upload names the service received, by input stem: each input's uploads. */
function uploadsByStem(service: CleanRoomService): Map<string, string[]> {
  const byStem = new Map<string, string[]>();
  for (const request of service.received) {
    if (request.method !== 'POST' || request.path !== UPLOAD_PATH) continue;
    const stem = String(request.fileName).split('.')[0] ?? '';
    byStem.set(stem, [...(byStem.get(stem) ?? []), String(request.fileName)]);
  }
  return byStem;
}

/** Each input uploaded once, and each output the result of the job made of its own upload. */
async function expectEachOnceFromItsOwnJob({ service, dir }: Omit<Run, 'vredact'>): Promise<void> {
  const byStem = uploadsByStem(service);
  expect(Object.fromEntries([...byStem].map(([stem, names]) => [stem, names.length]))).toEqual({
    east: 1,
    north: 1,
    west: 1,
  });
  const jobIds = service.jobIds();
  expect(jobIds).toHaveLength(3);
  for (const name of Object.keys(INPUTS)) {
    const stem = name.replace(/\.wav$/, '');
    const jobId = jobIds.find((id) => service.uploadNameOf(id) === byStem.get(stem)?.[0]);
    const output = join(dir, 'out', name);
    expect(await isWav(output)).toBe(true);
    expect(await readFile(output), name).toEqual(service.resultOf(jobId!));
  }
}

describe.concurrent('vredact redact: a service whose times carry no zone', TEST_GUARD, () => {
  for (const [zone, minutesEast] of [
    ['UTC-5', -300],
    ['UTC+9', 540],
  ] as const) {
    it(`${zone}: finds the jobs of uploads whose answer was lost in the same run: each file sent once, exit 0`, () =>
      zonelessService(minutesEast, async ({ service, dir, vredact }) => {
        const run = await vredact(['redact', 'in', '-o', 'out', '--json']);
        expect(run.exitCode, String(run.stderr) + String(run.stdout)).toBe(0);
        const lines = jsonLines(run.stdout).filter((line) => line.status !== undefined);
        expect(lines.map((line) => line.status)).toEqual(['done', 'done', 'done']);
        await expectEachOnceFromItsOwnJob({ service, dir });
      }));
  }

  it('UTC-5: the next run finds the jobs a lagging listing did not show, and sends nothing again', () =>
    zonelessService(-300, async ({ service, dir, vredact }) => {
      service.listJobs(false);
      const first = await vredact(['redact', 'in', '-o', 'out', '--json']);
      expect(first.exitCode, String(first.stderr)).toBe(1);
      service.listJobs(true);
      const later = await vredact(['redact', 'in', '-o', 'out', '--json']);
      expect(later.exitCode, String(later.stderr) + String(later.stdout)).toBe(0);
      const lines = jsonLines(later.stdout).filter((line) => line.status !== undefined);
      expect(lines.map((line) => line.status)).toEqual(['done', 'done', 'done']);
      await expectEachOnceFromItsOwnJob({ service, dir });
    }));
});
