import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { standingRecord } from '../../src/status/earlier-output.js';
import { listJournals, readJournals } from '../../src/status/read-journals.js';
import { manifestInputs } from '../../src/status/summary.js';
import { describe as describeFile, fileStatus } from '../../src/status/summary.js';
import { tempDirPerTest } from '../helpers/cli.js';
import { statusRecord, writeJournal } from '../helpers/journal.js';

const dir = tempDirPerTest('vredact-earlier-output-');

/** The outputs the journal names, on disk as a run left them. */
async function outputs(...names: string[]) {
  for (const name of names) await writeFile(join(dir.path, name), 'RIFF');
}

async function readAll(details: boolean) {
  const names = (await listJournals(dir.path)) ?? [];
  return (await readJournals(dir.path, names, { details })).latest;
}

const done = (at: string, fields: Record<string, unknown> = {}) => ({
  at,
  event: 'done',
  input: '/in/a.wav',
  output: 'a.wav',
  inputSha256: 'a1',
  outputSha256: 'b1',
  jobId: 'j1',
  ...fields,
});

test('a failed redo keeps the done record before it as the standing output, with or without details', async () => {
  await writeJournal(dir.path, [
    { at: '2026-11-21T01:00:00.000Z', event: 'uploading', input: '/in/a.wav', inputSha256: 'a0' },
    done('2026-11-21T01:00:01.000Z'),
    { at: '2026-11-21T02:00:00.000Z', event: 'uploading', input: '/in/a.wav', inputSha256: 'a1' },
    { at: '2026-11-21T02:00:01.000Z', event: 'failed', input: '/in/a.wav', reason: 'refused (422)' },
    { at: '2026-11-21T02:00:00.000Z', event: 'done', input: '/in/b.wav', output: 'b.wav' },
  ]);
  await outputs('a.wav', 'b.wav');
  for (const details of [true, false]) {
    const latest = await readAll(details);
    const record = latest.get('/in/a.wav');
    expect(record).toMatchObject({
      event: 'failed',
      earlier: { event: 'done', at: '2026-11-21T01:00:01.000Z', output: 'a.wav', inputSha256: 'a1' },
    });
    expect(latest.stateOf('/in/a.wav')).toBe('failed');
    expect(record && standingRecord(record)?.at).toBe('2026-11-21T01:00:01.000Z');
    expect(manifestInputs(latest)).toEqual(['/in/a.wav', '/in/b.wav']);
    // A done input is its own standing output, with no earlier one.
    expect(latest.get('/in/b.wav')).not.toHaveProperty('earlier');
  }
  const detailed = (await readAll(true)).get('/in/a.wav');
  expect(detailed?.earlier).toMatchObject({ outputSha256: 'b1', jobId: 'j1' });
});

test('a later done record is the standing output again; a rejection after it keeps the latest done', async () => {
  await writeJournal(dir.path, [
    done('2026-11-21T01:00:00.000Z'),
    { at: '2026-11-21T02:00:00.000Z', event: 'failed', input: '/in/a.wav', reason: 'x' },
    done('2026-11-21T03:00:00.000Z', { inputSha256: 'a2' }),
    done('2026-11-21T01:00:00.000Z', { input: '/in/c.wav', output: 'c.wav' }),
    {
      at: '2026-11-21T04:00:00.000Z',
      event: 'rejected',
      input: '/in/c.wav',
      reason: 'not a WAV or MP3 file',
    },
  ]);
  await outputs('a.wav', 'c.wav');
  const latest = await readAll(false);
  expect(latest.get('/in/a.wav')).toMatchObject({ event: 'done', at: '2026-11-21T03:00:00.000Z' });
  expect(latest.get('/in/a.wav')).not.toHaveProperty('earlier');
  const rejected = latest.get('/in/c.wav');
  expect(rejected).toMatchObject({ event: 'rejected', earlier: { inputSha256: 'a1', output: 'c.wav' } });
  expect(manifestInputs(latest)).toEqual(['/in/a.wav', '/in/c.wav']);
});

test('a done record of a shard read after the journal of the later failure still stands', async () => {
  await writeJournal(
    dir.path,
    [{ at: '2026-11-21T05:00:00.000Z', event: 'failed', input: '/in/a.wav', reason: 'x' }],
    'journal.1-of-2.jsonl',
  );
  await writeJournal(
    dir.path,
    [done('2026-11-21T01:00:00.000Z'), done('2026-11-21T02:00:00.000Z', { inputSha256: 'a2' })],
    'journal.2-of-2.jsonl',
  );
  await outputs('a.wav');
  const latest = await readAll(true);
  expect(latest.get('/in/a.wav')).toMatchObject({ event: 'failed', earlier: { inputSha256: 'a2' } });
});

test('an earlier output deleted since stands no more: no note, no row', async () => {
  await writeJournal(dir.path, [
    done('2026-11-21T01:00:00.000Z'),
    { at: '2026-11-21T02:00:00.000Z', event: 'failed', input: '/in/a.wav', reason: 'x' },
  ]);
  const latest = await readAll(true);
  expect(latest.get('/in/a.wav')).not.toHaveProperty('earlier');
  expect(manifestInputs(latest)).toEqual([]);
  await outputs('a.wav');
  expect(manifestInputs(await readAll(true))).toEqual(['/in/a.wav']);
});

test('an input never done has no earlier output, and no row in the manifest', async () => {
  await writeJournal(dir.path, [
    { at: '2026-11-21T02:00:00.000Z', event: 'failed', input: '/in/a.wav', reason: 'x' },
    { at: '2026-11-21T02:00:00.000Z', event: 'submitted', input: '/in/b.wav', jobId: 'j2' },
  ]);
  const latest = await readAll(true);
  expect(latest.get('/in/a.wav')).not.toHaveProperty('earlier');
  expect(manifestInputs(latest)).toEqual([]);
});

test('status says the earlier output stands, in words and in JSON', () => {
  const earlier = statusRecord(done('2026-11-21T01:00:00.000Z', { inputSha256: 'c'.repeat(64) }));
  const failed = {
    ...statusRecord({
      at: '2026-11-21T02:00:00.000Z',
      event: 'failed',
      input: '/in/a.wav',
      reason: 'refused',
    }),
    earlier,
  };
  expect(describeFile(failed)).toBe(
    `refused; its earlier output a.wav stands (done 2026-11-21T01:00:00.000Z, of input SHA-256 ${'c'.repeat(12)}…)`,
  );
  expect(fileStatus('/out', failed).earlierOutput).toEqual({
    output: '/out/a.wav',
    inputSha256: 'c'.repeat(64),
    outputSha256: 'b1',
    jobId: 'j1',
    doneAt: '2026-11-21T01:00:00.000Z',
  });
});
