/**
 * What a crash test's round (chaos-round.ts) must end with, from what vredact promises: every input
 * done once with its own result, nothing left beside the outputs, the journals and `status` all done,
 * and nothing sent twice where vredact promises it:
 *
 * - an upload the service made a job of is never followed by another upload of that input, whether
 *   vredact heard of the job or not (a 502, a dropped connection): the job is found by its upload
 *   name (this service lists every job, naming its upload) and collected;
 * - an input whose output stood after a run is never sent by a later run (a result saved before its
 *   done line was lost is checked and recorded done);
 * - an input whose upload was answered whole in a run that ended by itself (exit 0 or 1, or 130
 *   after a first Ctrl-C, which lets the uploads in flight finish and records them) is never sent by
 *   a later run;
 * - within one run, an input is sent again only after a 503 (the service says it did not take it):
 *   after a 500, a 502, a dropped connection or an answer cut short it may have, and the run leaves
 *   it to the next, which looks for its job first;
 * - an input is sent only by a lane whose share it is in.
 *
 * No more: a synchronous answer lost (to a SIGKILL before its output was saved, a 502, a dropped
 * connection) is sent again, as the service keeps nothing to fetch.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { endingsOf, type Round } from './chaos-round.js';
import { redactedOf, sha256 } from './chaos-service.js';
import { runCli } from './cli.js';
import { listFiles } from './e2e.js';

/** The last journal line of each input, over every journal of the folder; an input in two fails. */
async function lastJournalLines(out: string): Promise<Map<string, Record<string, unknown>>> {
  const last = new Map<string, Record<string, unknown>>();
  const state = join(out, '.vredact');
  for (const name of (await readdir(state)).filter((entry) => /^journal.*\.jsonl$/.test(entry))) {
    const mine = new Map<string, Record<string, unknown>>();
    for (const line of (await readFile(join(state, name), 'utf8')).split('\n').filter(Boolean)) {
      const record = JSON.parse(line) as Record<string, unknown>;
      mine.set(String(record.input), record);
    }
    for (const [input, record] of mine) {
      expect(last.has(input), `${input} is in two journals`).toBe(false);
      last.set(input, record);
    }
  }
  return last;
}

/**
 * Exactly one output per input, its own result, nothing else beside them (`state`: the files of
 * `.vredact/`); the journals' last word on each input is done, and `status` says all are.
 */
export async function expectAllDone(round: Round, env: NodeJS.ProcessEnv, state: string[]): Promise<void> {
  const { out, inputs } = round;
  const files = await listFiles(out);
  expect(files.filter((rel) => !rel.startsWith('.vredact/'))).toEqual(inputs.map((i) => i.rel).sort());
  expect(files.filter((rel) => rel.startsWith('.vredact/'))).toEqual(state.map((name) => `.vredact/${name}`));
  for (const input of inputs) {
    expect((await readFile(join(out, input.rel))).equals(redactedOf(input.bytes)), input.rel).toBe(true);
  }
  const last = await lastJournalLines(out);
  expect(last.size).toBe(inputs.length);
  for (const input of inputs) {
    expect(last.get(join(round.dir, 'in', input.rel)), input.rel).toMatchObject({
      event: 'done',
      output: input.rel,
      inputSha256: input.sha,
      outputSha256: sha256(redactedOf(input.bytes)),
    });
  }
  const status = await runCli(['status', '-o', 'out', '--json'], { env, cwd: round.dir });
  expect(status.exitCode, String(status.stderr)).toBe(0);
  const counts = (JSON.parse(String(status.stdout)) as { counts: Record<string, number> }).counts;
  const count = inputs.length;
  expect(counts).toMatchObject({ done: count, total: count, pending: 0, failed: 0, uploading: 0 });
}

/** Never sent twice where vredact promises it, and only by the lane whose share it is. */
export function expectNeverSentTwice(round: Round): void {
  const endings = (run: number) =>
    `${round.runs.get(run)?.lane.name}: ${endingsOf(round, round.runs.get(run)?.lane)}`;
  for (const input of round.inputs) {
    const uploads = round.service.uploads.filter((upload) => upload.inputSha256 === input.sha);
    expect(uploads.length, `${input.rel} was never sent`).toBeGreaterThan(0);
    uploads.forEach((upload, i) => {
      const record = round.runs.get(upload.run);
      expect(record?.lane.owns(input), `${input.rel} was sent by ${record?.lane.name}`).toBe(true);
      const next = uploads[i + 1];
      if (next?.run === upload.run) {
        expect(
          upload.fault,
          `${input.rel} was sent twice in run #${upload.run} (${endings(upload.run)})`,
        ).toBe('refused-503');
      }
      expect(
        record?.settledBefore.has(input.sha),
        `${input.rel} was sent again in run #${upload.run} (${endings(upload.run)})`,
      ).toBe(false);
    });
    const firstJob = uploads.findIndex((upload) => upload.jobId !== undefined);
    if (firstJob >= 0) {
      expect(firstJob, `${input.rel} was sent again after its upload made a job`).toBe(uploads.length - 1);
    }
  }
}
