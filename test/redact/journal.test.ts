import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { decide } from '../../src/redact/decide.js';
import { journalPath, optionsFingerprint } from '../../src/redact/journal.js';
import { readJournal } from '../../src/redact/journal-read.js';
import { jobIdsNamed } from '../../src/redact/journal-search.js';
import { JournalWriter } from '../../src/redact/journal-writer.js';
import { parseDurationMs, parseRedactOptions, parseShard, parseSize } from '../../src/redact/options.js';
import { tempDirPerTest } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-journal-');

const base = { size: 100, mtimeMs: 1234.5, options: optionsFingerprint({}) };

describe('journal', () => {
  it('replays the last record of each input and ignores a torn last line', async () => {
    const path = journalPath(dir.path);
    const writer = await JournalWriter.open(path);
    await writer.append(
      { event: 'submitted', input: '/a.wav', ...base, jobId: 'j1', uploadName: 'a.wav' },
      true,
    );
    await writer.append({
      event: 'done',
      input: '/a.wav',
      ...base,
      output: 'a.wav',
      via: 'job',
      jobId: 'j1',
    });
    await writer.append(
      { event: 'submitted', input: '/b.wav', ...base, jobId: 'j2', uploadName: 'b.wav' },
      true,
    );
    await writer.close();
    await appendFile(path, '{"v":1,"event":"done","input":"/b.wav","si'); // a crash mid-line
    const state = await readJournal(path);
    expect(state.latest.get('/a.wav')?.event).toBe('done');
    expect(state.latest.get('/b.wav')).toMatchObject({ event: 'submitted', jobId: 'j2' });
    expect(state.unreadable).toBe(1);

    // The next run's first line must not be glued to the torn one.
    const again = await JournalWriter.open(path);
    await again.append({ event: 'done', input: '/b.wav', ...base, output: 'b.wav', via: 'job', jobId: 'j2' });
    await again.close();
    const replayed = await readJournal(path);
    expect(replayed.latest.get('/b.wav')?.event).toBe('done');
    expect(replayed.unreadable).toBe(1);
    expect((await readFile(path, 'utf8')).split('\n').filter(Boolean)).toHaveLength(5);
  });

  it('keeps, for an input last seen uploading, when its uploads in a row started and the record before', async () => {
    const path = journalPath(dir.path);
    const writer = await JournalWriter.open(path);
    const uploading = { event: 'uploading' as const, ...base, uploadName: 'a.wav' };
    await writer.append({ event: 'failed', input: '/a.wav', ...base, reason: 'boom', jobId: 'j0' });
    await writer.append({ ...uploading, input: '/a.wav', at: '2026-11-21T02:00:00.000Z' }, true);
    await writer.append({ ...uploading, input: '/a.wav', at: '2026-11-22T02:00:00.000Z' }, true);
    await writer.append({ ...uploading, input: '/b.wav', at: '2026-11-21T02:00:00.000Z' }, true);
    await writer.append(
      { ...uploading, input: '/b.wav', at: '2026-11-22T02:00:00.000Z', size: 7, outputAbsent: true },
      true,
    );
    await writer.append({ ...uploading, input: '/c.wav', at: '2026-11-21T02:00:00.000Z' }, true);
    await writer.append(
      { event: 'submitted', input: '/c.wav', ...base, jobId: 'j1', uploadName: 'c.wav' },
      true,
    );
    await writer.close();
    // An uploading line without its start time or upload name is of no use.
    await appendFile(path, `${JSON.stringify({ v: 1, event: 'uploading', input: '/d.wav', ...base })}\n`);
    const state = await readJournal(path);
    expect(state.unreadable).toBe(1);
    expect(state.interrupted.get('/a.wav')).toEqual({
      sinceMs: Date.parse('2026-11-21T02:00:00.000Z'),
      uploads: 2,
      before: expect.objectContaining({ event: 'failed' }),
      lastStartedMs: Date.parse('2026-11-22T02:00:00.000Z'),
      lastSawNoOutput: false,
    });
    // The file changed between the two uploads: only the last one counts. It began with no output.
    expect(state.interrupted.get('/b.wav')).toEqual({
      sinceMs: Date.parse('2026-11-22T02:00:00.000Z'),
      uploads: 1,
      before: undefined,
      lastStartedMs: Date.parse('2026-11-22T02:00:00.000Z'),
      lastSawNoOutput: true,
    });
    expect(state.latest.get('/b.wav')?.size).toBe(7);
    expect(state.interrupted.has('/c.wav')).toBe(false);
    expect(state.latest.get('/c.wav')?.event).toBe('submitted');
    expect([...(await jobIdsNamed([path], new Set(['j0', 'j1', 'j2'])))].sort()).toEqual(['j0', 'j1']);
  });

  it('reads a missing journal as empty', async () => {
    const state = await readJournal(join(dir.path, 'nope', 'journal.jsonl'));
    expect(state.latest.size).toBe(0);
  });

  it('only appends: earlier lines stay as they were', async () => {
    const path = journalPath(dir.path);
    const writer = await JournalWriter.open(path);
    await writer.append({ event: 'failed', input: '/a.wav', ...base, reason: 'boom' });
    await writer.close();
    const first = await readFile(path, 'utf8');
    const second = await JournalWriter.open(path);
    await second.append({ event: 'done', input: '/a.wav', ...base, output: 'a.wav', via: 'sync' });
    await second.close();
    expect((await readFile(path, 'utf8')).startsWith(first)).toBe(true);
  });

  it("writes nothing more once its guard refuses (the lock is another run's), and says why", async () => {
    const path = journalPath(dir.path);
    const refusal = new Error('the lock was taken over');
    let refusing = false;
    const writer = await JournalWriter.open(path, { now: Date.now }, async () => {
      if (refusing) throw refusal;
    });
    await writer.append({ event: 'failed', input: '/a.wav', ...base, reason: 'boom' }, true);
    const before = await readFile(path, 'utf8');
    refusing = true;
    await expect(
      writer.append({ event: 'uploading', input: '/b.wav', ...base, uploadName: 'b.1.wav' }, true),
    ).rejects.toBe(refusal);
    await expect(writer.append({ event: 'failed', input: '/c.wav', ...base, reason: 'x' })).rejects.toBe(
      refusal,
    );
    expect(writer.failure).toBe(refusal);
    await writer.close();
    expect(await readFile(path, 'utf8')).toBe(before);
  });

  it('reads a large journal in one pass', async () => {
    const path = journalPath(dir.path);
    await mkdir(join(dir.path, '.vredact'), { recursive: true });
    const lines = Array.from({ length: 50_000 }, (_, i) =>
      JSON.stringify({
        v: 1,
        at: '',
        event: 'done',
        input: `/f${i % 20_000}.wav`,
        ...base,
        output: `f${i}.wav`,
      }),
    );
    await writeFile(path, `${lines.join('\n')}\n`);
    const state = await readJournal(path);
    expect(state.lines).toBe(50_000);
    expect(state.latest.size).toBe(20_000);
  });
});

describe('re-run decisions', () => {
  const done = { v: 1 as const, at: '', event: 'done' as const, input: '/a.wav', ...base, output: 'a.wav' };
  const { options: voiceFingerprint, ...identity } = base;
  const input = { record: done, ...identity, voiceFingerprint, outputExists: true, overwrite: false };

  it('skips what is done with the same size, time, options and an output', () => {
    expect(decide(input)).toEqual({ action: 'skip', why: 'done' });
  });
  it('redoes when the output is gone, the file changed, or the options changed', () => {
    expect(decide({ ...input, outputExists: false })).toMatchObject({
      action: 'send',
      why: 'output-missing',
    });
    expect(decide({ ...input, size: 101 })).toMatchObject({ action: 'send', why: 'changed' });
    expect(decide({ ...input, mtimeMs: 99 })).toMatchObject({ action: 'send', why: 'changed' });
    expect(decide({ ...input, voiceFingerprint: optionsFingerprint({ gender: 'f' }) })).toMatchObject({
      action: 'send',
    });
  });
  it('redoes done files with --overwrite', () => {
    expect(decide({ ...input, overwrite: true })).toMatchObject({ action: 'send', why: 'overwrite' });
  });
  it('collects a submitted job instead of sending again, unless the file changed', () => {
    const submitted = { ...done, event: 'submitted' as const, jobId: 'j9', uploadName: 'a.wav' };
    expect(decide({ ...input, record: submitted })).toEqual({
      action: 'collect',
      jobId: 'j9',
      uploadName: 'a.wav',
    });
    expect(decide({ ...input, record: submitted, overwrite: true })).toMatchObject({ action: 'collect' });
    expect(decide({ ...input, record: submitted, size: 5 })).toMatchObject({ action: 'send' });
  });
  it('retries failed and rejected files', () => {
    expect(decide({ ...input, record: { ...done, event: 'failed' } })).toMatchObject({
      action: 'send',
      why: 'retry',
    });
    expect(decide({ ...input, record: { ...done, event: 'rejected' } })).toMatchObject({ action: 'send' });
  });
  it('leaves an output it has no record of, unless --overwrite', () => {
    expect(decide({ ...input, record: undefined })).toEqual({ action: 'skip', why: 'output-exists' });
    expect(decide({ ...input, record: undefined, outputExists: false })).toMatchObject({
      action: 'send',
      why: 'new',
    });
    expect(decide({ ...input, record: undefined, overwrite: true })).toMatchObject({ action: 'send' });
  });
  it('looks for the job of an interrupted upload first, else does what the record before it says', () => {
    const at = '2026-11-21T02:00:00.000Z';
    const uploading = { ...done, at, event: 'uploading' as const, uploadName: 'a.wav', durationSec: 7 };
    const sinceMs = Date.parse(at);
    // Nothing before it, no output: sent when no job is found.
    expect(decide({ ...input, record: uploading, outputExists: false })).toEqual({
      action: 'reconcile',
      sinceMs,
      otherwise: { action: 'send', why: 'new' },
    });
    // Its output there and nothing before (a synchronous answer written, not journaled): left as today.
    expect(decide({ ...input, record: uploading })).toMatchObject({
      action: 'reconcile',
      otherwise: { action: 'skip', why: 'output-exists' },
    });
    // Done before, redone with --overwrite, cut short: looked up even with --overwrite.
    const interrupted = {
      sinceMs: sinceMs - 1000,
      uploads: 1,
      before: done,
      lastStartedMs: sinceMs - 1000,
      lastSawNoOutput: false,
    };
    expect(decide({ ...input, record: uploading, interrupted })).toMatchObject({
      action: 'reconcile',
      sinceMs: sinceMs - 1000,
      otherwise: { action: 'skip', why: 'done' },
    });
    expect(decide({ ...input, record: uploading, interrupted, overwrite: true })).toMatchObject({
      action: 'reconcile',
      otherwise: { action: 'send', why: 'overwrite' },
    });
    // Its last upload began with no output there, and one stands there now: it published it, and a
    // crash took its done line. Checked and recorded (adopt.ts), unless --overwrite redoes it.
    const published = { ...interrupted, before: undefined, lastSawNoOutput: true };
    expect(decide({ ...input, record: uploading, interrupted: published, outputExists: true })).toEqual({
      action: 'adopt',
      startedMs: sinceMs - 1000,
    });
    expect(
      decide({ ...input, record: uploading, interrupted: published, outputExists: false }),
    ).toMatchObject({
      action: 'reconcile',
      otherwise: { action: 'send', why: 'new' },
    });
    expect(
      decide({ ...input, record: uploading, interrupted: published, outputExists: true, overwrite: true }),
    ).toMatchObject({ action: 'reconcile', otherwise: { action: 'send', why: 'overwrite' } });
    // Changed since: whatever job it became is of the old content.
    expect(decide({ ...input, record: uploading, size: 5 })).toEqual({ action: 'send', why: 'changed' });
  });
  it('fingerprints the options independently of their order', () => {
    expect(optionsFingerprint({ age: 'same', gender: 'f' })).toBe(
      optionsFingerprint({ gender: 'f', age: 'same' }),
    );
    expect(optionsFingerprint({ age: 'same' })).not.toBe(optionsFingerprint({}));
  });
});

describe('options', () => {
  it('parses durations', () => {
    expect(parseDurationMs('90s')).toBe(90_000);
    expect(parseDurationMs('30m')).toBe(1_800_000);
    expect(parseDurationMs('2h')).toBe(7_200_000);
    expect(parseDurationMs('1h30m')).toBe(5_400_000);
    expect(parseDurationMs('45')).toBe(45_000);
    expect(parseDurationMs('1.5')).toBe(1500);
    expect(parseDurationMs('500ms')).toBe(500);
    expect(parseDurationMs('0')).toBe(0);
    for (const bad of ['', 'abc', '-5', '5x', 'h', '1h 2']) expect(parseDurationMs(bad)).toBeUndefined();
  });

  it('parses sizes and shards', () => {
    expect(parseSize('10485760')).toBe(10_485_760);
    expect(parseSize('10MiB')).toBe(10_485_760);
    expect(parseSize('10MB')).toBe(10_000_000);
    expect(parseSize('500k')).toBe(500_000);
    expect(parseSize('ten')).toBeUndefined();
    expect(parseShard('2/3')).toEqual({ index: 2, count: 3 });
    for (const bad of ['0/3', '4/3', '3', 'a/b', '1/0']) expect(() => parseShard(bad)).toThrow(UsageError);
  });

  it('has the documented defaults and refuses bad values as usage errors', () => {
    expect(parseRedactOptions({ wait: true })).toMatchObject({
      maxSize: 10 * 1024 * 1024,
      maxDurationSec: 3600,
      waitTimeoutMs: 7_200_000,
      wait: true,
      dryRun: false,
    });
    expect(parseRedactOptions({ wait: false, maxDuration: '60m' })).toMatchObject({
      wait: false,
      maxDurationSec: 3600,
    });
    for (const bad of [{ waitTimeout: 'soon' }, { maxSize: '0' }, { maxDuration: 'x' }, { shard: '5/4' }]) {
      expect(() => parseRedactOptions(bad)).toThrow(UsageError);
    }
  });
});
