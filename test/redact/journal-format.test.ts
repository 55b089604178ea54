/**
 * Lines the reader does not take as they stand: a later format's (the run stops), a line of no known
 * format (damage), a `submitted` line whose job id cannot be used (read as the upload it names).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliError, ExitCode } from '../../src/errors.js';
import { journalPath, optionsFingerprint } from '../../src/redact/journal.js';
import { readJournal, readJournals } from '../../src/redact/journal-read.js';
import { uploadsNamed } from '../../src/redact/journal-search.js';
import { tempDirPerTest } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-journal-format-');
const base = { v: 1, size: 100, mtimeMs: 1234.5, options: optionsFingerprint({}) };
const line = (fields: Record<string, unknown>) => JSON.stringify({ ...base, ...fields });

async function writeLines(lines: readonly string[]): Promise<string> {
  const path = journalPath(dir.path);
  await mkdir(join(dir.path, '.vredact'), { recursive: true });
  await writeFile(path, lines.map((text) => `${text}\n`).join(''));
  return path;
}

const uploading = line({
  at: '2026-01-01T00:00:00.000Z',
  event: 'uploading',
  input: '/a.wav',
  output: 'a.wav',
  uploadName: 'a.0123abcd.wav',
});

describe('a line of a later format', () => {
  it('stops the read, naming the journal and the line, and saying to upgrade', async () => {
    const path = await writeLines([
      line({ at: '2026-01-01T00:00:00.000Z', event: 'done', input: '/a.wav', output: 'a.wav' }),
      line({ at: '2026-01-01T00:00:01.000Z', event: 'failed', input: '/b.wav', reason: 'x' }),
      // A later format may rename any field: its version alone says it is one.
      JSON.stringify({ v: 2, t: '2026-01-02T00:00:00.000Z', kind: 'finished', file: '/a.wav' }),
    ]);
    const error = await readJournals(dir.path).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(ExitCode.usage);
    expect((error as CliError).message).toBe(
      `line 3 of the journal ${path} was written by a newer vredact (journal format 2; this version reads 1): upgrade vredact to go on`,
    );
    await expect(readJournal(path)).rejects.toThrow(/line 3 of the journal/);
  });
});

describe('a line of no known format', () => {
  it('is damage: skipped and counted, as any damaged line', async () => {
    const path = await writeLines([
      line({ at: '2026-01-01T00:00:00.000Z', event: 'done', input: '/a.wav' }),
      ...[undefined, '1', 1.5, 0, -3, null].map((v) =>
        JSON.stringify({ ...base, v, at: '2026-01-01T00:00:01.000Z', event: 'failed', input: '/a.wav' }),
      ),
    ]);
    const state = await readJournal(path);
    expect(state.unreadable).toBe(6);
    expect(state.latest.get('/a.wav')?.event).toBe('done');
  });
});

describe('a submitted line whose job id cannot be used', () => {
  const submitted = (jobId: unknown) =>
    line({
      at: '2026-01-01T00:00:05.000Z',
      event: 'submitted',
      input: '/a.wav',
      output: 'a.wav',
      uploadName: 'a.0123abcd.wav',
      ...(jobId === undefined ? {} : { jobId }),
    });

  it.each([undefined, '', '../jobs', 'j\u001b[2J', 42])(
    'is read as the upload it names (job id %j): cut short, looked up by its upload name',
    async (jobId) => {
      await writeLines([uploading, submitted(jobId)]);
      const state = await readJournals(dir.path);
      expect(state.unreadable).toBe(0);
      expect(state.latest.get('/a.wav')?.event).toBe('uploading');
      expect(state.interrupted.get('/a.wav')).toMatchObject({
        sinceMs: Date.parse('2026-01-01T00:00:00.000Z'),
        before: undefined,
      });
    },
  );

  it('without its uploading line (a compacted journal), is the upload itself, found by its name', async () => {
    const path = await writeLines([submitted('../jobs')]);
    const state = await readJournals(dir.path);
    expect(state.latest.get('/a.wav')?.event).toBe('uploading');
    expect(state.interrupted.get('/a.wav')?.sinceMs).toBe(Date.parse('2026-01-01T00:00:05.000Z'));
    const found = await uploadsNamed([path], new Set(['a.0123abcd.wav']));
    expect(found.get('/a.wav')?.map((upload) => upload.uploadName)).toEqual(['a.0123abcd.wav']);
  });

  it('with no upload name either, is damage', async () => {
    await writeLines([
      uploading,
      line({ at: '2026-01-01T00:00:05.000Z', event: 'submitted', input: '/a.wav', jobId: '' }),
    ]);
    const state = await readJournals(dir.path);
    expect(state.unreadable).toBe(1);
    expect(state.latest.get('/a.wav')?.event).toBe('uploading');
  });

  it('a usable job id is collected as ever', async () => {
    await writeLines([uploading, submitted('55e5-job')]);
    const state = await readJournals(dir.path);
    expect(state.latest.get('/a.wav')).toMatchObject({ event: 'submitted', jobId: '55e5-job' });
    expect(state.interrupted.size).toBe(0);
  });
});
