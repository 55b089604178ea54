/** How `vredact status` prints a summary: terminal lines, TSV lines, one JSON document. */
import { describe, expect, it } from 'vitest';
import {
  countsLine,
  printJsonDocument,
  printTerminal,
  printTsv,
  type StatusView,
} from '../../../src/commands/status/render.js';
import type { LineWriter } from '../../../src/commands/status/write-lines.js';
import { columnsOf } from '../../../src/output/fit.js';
import { MAX_MESSAGE_CHARS } from '../../../src/output/sanitize.js';
import type { StatusRecord } from '../../../src/status/records.js';
import { summarize } from '../../../src/status/summary.js';
import { testContext } from '../../helpers/context.js';
import { latestOf } from '../../helpers/journal.js';

const CWD = '/srv/batch';
const OUT_DIR = '/srv/batch/redacted';

/** A LineWriter that keeps what it is given; after `limit` writes it behaves as a reader gone away. */
function recordingWriter(limit = Infinity): LineWriter & { text: () => string; flushed: () => number } {
  let text = '';
  let writes = 0;
  let flushes = 0;
  return {
    async write(chunk) {
      if (writes >= limit) return false;
      writes++;
      text += chunk;
      return true;
    },
    async flush() {
      flushes++;
      return writes < limit;
    },
    text: () => text,
    flushed: () => flushes,
  };
}

function record(fields: Partial<StatusRecord> & Pick<StatusRecord, 'event' | 'input'>): StatusRecord {
  const at = fields.at ?? '2026-11-21T02:00:00.000Z';
  return { output: '', at, ...fields };
}

const failed = record({
  event: 'failed',
  input: '/srv/batch/calls/b\u001b[31m.wav',
  output: 'calls/b.wav',
  reason: 'the service said\r\n\u001b]0;pwned\u0007 no\tthanks',
  jobId: 'job\u001b[2J-1',
  at: '2026-11-21T02:00:02.000Z',
});
const submitted = record({
  event: 'submitted',
  input: '/archive/c.wav',
  output: 'c.wav',
  jobId: 'job-2',
  at: '2026-11-21T02:00:03.000Z',
});
const uploading = record({ event: 'uploading', input: '/srv/batch/d.wav', output: 'd.wav' });
const done = record({ event: 'done', input: '/srv/batch/a.wav', output: 'a.wav' });

function view(listed: StatusRecord[], all: StatusRecord[] = listed): StatusView {
  return {
    outDir: OUT_DIR,
    journals: ['/srv/batch/redacted/.vredact/journal.jsonl'],
    counts: summarize(latestOf(all), false).counts,
    unreadable: 1,
    listed,
  };
}

describe('countsLine', () => {
  it('counts every state, with "input" singular only for one', () => {
    expect(
      countsLine({ done: 1, uploading: 0, pending: 1, failed: 1, rejected: 0, total: 3 }, 'redacted'),
    ).toBe('3 journaled inputs in redacted: 1 done, 1 pending, 1 failed, 0 rejected');
    expect(countsLine({ done: 1, uploading: 0, pending: 0, failed: 0, rejected: 0, total: 1 }, 'out')).toBe(
      '1 journaled input in out: 1 done, 0 pending, 0 failed, 0 rejected',
    );
    expect(countsLine({ done: 0, uploading: 0, pending: 0, failed: 0, rejected: 0, total: 0 }, 'out')).toBe(
      '0 journaled inputs in out: 0 done, 0 pending, 0 failed, 0 rejected',
    );
    expect(countsLine({ done: 0, uploading: 2, pending: 1, failed: 0, rejected: 0, total: 3 }, 'out')).toBe(
      '3 journaled inputs in out: 0 done, 2 uploading, 1 pending, 0 failed, 0 rejected',
    );
  });
});

describe('printTerminal', () => {
  it('prints the counts, then one compact line per file, paths relative to the working folder', async () => {
    const t = await testContext({ tty: true, cwd: CWD, columns: 200 });
    const out = recordingWriter();
    await printTerminal(
      t.ctx,
      out,
      view([failed, submitted, uploading], [failed, submitted, uploading, done]),
    );
    expect(out.text().split('\n')).toEqual([
      '4 journaled inputs in redacted: 1 done, 2 pending, 1 failed, 0 rejected',
      'failed   calls/b\\x1b[31m.wav  the service said\\r\\n\\x1b]0;pwned\\x07 no thanks (job job\\x1b[2J-1)',
      // Outside the working folder, the path stays absolute.
      'pending  /archive/c.wav  submitted; the next run collects its job (job job-2)',
      'pending  d.wav  upload interrupted; the next run looks for its job first, then sends it again',
      '',
    ]);
    expect(out.text()).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(out.flushed()).toBe(1);
  });

  it('cuts a very long reason, saying how much was left out', async () => {
    const t = await testContext({ tty: true, cwd: CWD, columns: 500 });
    const out = recordingWriter();
    const long = record({
      event: 'rejected',
      input: '/srv/batch/x.wav',
      reason: 'r'.repeat(MAX_MESSAGE_CHARS + 50),
    });
    await printTerminal(t.ctx, out, view([long]));
    const line = out.text().split('\n')[1]!;
    expect(line).toBe(`rejected x.wav  ${'r'.repeat(MAX_MESSAGE_CHARS)}… (50 more characters)`);
  });

  it('cuts each line to the terminal width: a long reason never wraps', async () => {
    const t = await testContext({ tty: true, cwd: CWD, columns: 40 });
    const out = recordingWriter();
    const long = record({
      event: 'failed',
      input: '/srv/batch/calls/b.wav',
      reason: 'the service answered 500: '.repeat(8),
      jobId: 'job-9',
    });
    await printTerminal(t.ctx, out, view([long, uploading]));
    const lines = out.text().trimEnd().split('\n');
    expect(lines).toEqual([
      '2 journaled inputs in redacted: 0 done,…',
      'failed   calls/b.wav  the service answe…',
      'pending  d.wav  upload interrupted; the…',
    ]);
    for (const line of lines) expect(columnsOf(line)).toBeLessThanOrEqual(40);
  });

  it('cuts a long name keeping its end (the file name and its extension), so the reason shows whole', async () => {
    const t = await testContext({ tty: true, cwd: CWD, columns: 200 });
    const out = recordingWriter();
    const nasty = record({
      event: 'rejected',
      input: `/srv/batch/nasty/bad-${'M'.repeat(240)}.wav`,
      reason: 'not a WAV or MP3 file',
    });
    await printTerminal(t.ctx, out, view([nasty]));
    const line = out.text().split('\n')[1]!;
    expect(line).toMatch(/^rejected …M+\.wav {2}not a WAV or MP3 file$/);
    expect(columnsOf(line)).toBe(200);
  });

  it('shows the output folder absolute when it is not under the working folder, escaped', async () => {
    const t = await testContext({ tty: true, cwd: '/home/someone' });
    const out = recordingWriter();
    await printTerminal(t.ctx, out, { ...view([]), outDir: '/srv/out\u001b[2J' });
    expect(out.text()).toBe(
      '0 journaled inputs in /srv/out\\x1b[2J: 0 done, 0 pending, 0 failed, 0 rejected\n',
    );
  });

  it('stops at once when the reader has gone away', async () => {
    const t = await testContext({ tty: true, cwd: CWD });
    const out = recordingWriter(2);
    await printTerminal(t.ctx, out, view([failed, submitted, uploading]));
    expect(out.text().split('\n').filter(Boolean)).toHaveLength(2);
    expect(out.flushed()).toBe(0);
  });
});

describe('printTsv', () => {
  it('writes state, input, reason, job id, output and time per file, tab-separated, counts to the log', async () => {
    const t = await testContext({ cwd: CWD });
    const out = recordingWriter();
    await printTsv(
      t.ctx,
      out,
      view([failed, submitted, uploading, done], [failed, submitted, uploading, done]),
    );
    const lines = out.text().split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => line.split('\t'))).toEqual([
      [
        'failed',
        '/srv/batch/calls/b\\x1b[31m.wav',
        // A tab inside a field would shift the columns: it becomes a space.
        'the service said\\r\\n\\x1b]0;pwned\\x07 no thanks',
        'job\\x1b[2J-1',
        '/srv/batch/redacted/calls/b.wav',
        '2026-11-21T02:00:02.000Z',
      ],
      [
        'pending',
        '/archive/c.wav',
        'submitted; the next run collects its job',
        'job-2',
        '/srv/batch/redacted/c.wav',
        '2026-11-21T02:00:03.000Z',
      ],
      [
        'pending',
        '/srv/batch/d.wav',
        'upload interrupted; the next run looks for its job first, then sends it again',
        '',
        '/srv/batch/redacted/d.wav',
        '2026-11-21T02:00:00.000Z',
      ],
      // A missing field stays empty.
      ['done', '/srv/batch/a.wav', '', '', '/srv/batch/redacted/a.wav', '2026-11-21T02:00:00.000Z'],
    ]);
    // No header line, nothing but the rows on stdout; the counts go to stderr.
    expect(t.stdout()).toBe('');
    expect(t.stderr()).toContain(
      '4 journaled inputs in /srv/batch/redacted: 1 done, 2 pending, 1 failed, 0 rejected',
    );
  });

  it('keeps a file with no output path as an empty column', async () => {
    const t = await testContext({ cwd: CWD });
    const out = recordingWriter();
    await printTsv(t.ctx, out, view([record({ event: 'rejected', input: '/in/z.mp3', reason: 'too long' })]));
    expect(out.text()).toBe('rejected\t/in/z.mp3\ttoo long\t\t\t2026-11-21T02:00:00.000Z\n');
  });

  it('stops at once when the reader has gone away', async () => {
    const t = await testContext({ cwd: CWD });
    const out = recordingWriter(1);
    await printTsv(t.ctx, out, view([failed, submitted, uploading]));
    expect(out.text().split('\n').filter(Boolean)).toHaveLength(1);
    expect(out.flushed()).toBe(0);
  });
});

describe('printJsonDocument', () => {
  it('writes one document with the folder, journals, counts, unreadable lines and every file', async () => {
    const out = recordingWriter();
    await printJsonDocument(out, view([failed, submitted, done], [failed, submitted, done]));
    expect(JSON.parse(out.text())).toEqual({
      outDir: OUT_DIR,
      journals: ['/srv/batch/redacted/.vredact/journal.jsonl'],
      counts: { done: 1, uploading: 0, pending: 1, failed: 1, rejected: 0, total: 3 },
      unreadableLines: 1,
      files: [
        {
          // By JSON's rules: the exact text comes back once parsed.
          input: failed.input,
          output: '/srv/batch/redacted/calls/b.wav',
          state: 'failed',
          event: 'failed',
          reason: failed.reason,
          jobId: failed.jobId,
          at: '2026-11-21T02:00:02.000Z',
        },
        {
          input: '/archive/c.wav',
          output: '/srv/batch/redacted/c.wav',
          state: 'pending',
          event: 'submitted',
          reason: 'submitted; the next run collects its job',
          jobId: 'job-2',
          at: '2026-11-21T02:00:03.000Z',
        },
        {
          input: '/srv/batch/a.wav',
          output: '/srv/batch/redacted/a.wav',
          state: 'done',
          event: 'done',
          at: '2026-11-21T02:00:00.000Z',
        },
      ],
    });
    // Raw control characters never reach the output, only their JSON escapes.
    expect(out.text()).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(out.text().endsWith(']}\n')).toBe(true);
    expect(out.flushed()).toBe(1);
  });

  it('writes an empty list of files as a valid document', async () => {
    const out = recordingWriter();
    await printJsonDocument(out, view([]));
    expect(JSON.parse(out.text())).toMatchObject({ files: [], counts: { total: 0 } });
  });

  it('stops at once when the reader has gone away', async () => {
    const out = recordingWriter(2);
    await printJsonDocument(out, view([failed, submitted, done]));
    expect(out.flushed()).toBe(0);
    expect(out.text().split('\n')).toHaveLength(2);
  });
});
