import { PassThrough, Readable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { columnsOf } from '../../src/output/fit.js';
import { createIOStreams, type IOStreamsOptions } from '../../src/output/iostreams.js';
import { compactSummary, Reporter, summaryLine } from '../../src/redact/report.js';
import type { Progress } from '../../src/redact/outcome.js';

type Fake = PassThrough & { isTTY?: boolean; columns?: number };

function capture(isTTY: boolean, columns?: number) {
  const stream = new PassThrough() as Fake;
  if (isTTY) {
    stream.isTTY = true;
    stream.columns = columns;
  }
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  return { stream, text: () => text };
}

/** stdout a terminal of `columns` or a pipe; stderr never a terminal (no live line in-process). */
function setup(options: { stdoutColumns?: number } & Partial<IOStreamsOptions> = {}) {
  const { stdoutColumns, ...rest } = options;
  const out = capture(stdoutColumns !== undefined, stdoutColumns);
  const err = capture(false);
  const io = createIOStreams({
    streams: { stdout: out.stream, stderr: err.stream, stdin: Readable.from([]) },
    env: {},
    color: false,
    quiet: false,
    verbose: false,
    json: false,
    ...rest,
  });
  return { io, stdout: out.text, stderr: err.text };
}

const HOSTILE = 'calls/\u001b[2Jevil\r.wav';

describe('not on a terminal (cron, pipes)', () => {
  it('prints one tab-separated line per file, escaped, and the summary on stderr', async () => {
    const { io, stdout, stderr } = setup();
    const reporter = await Reporter.start(io, { verb: 'redacting' });
    reporter.outcome({ input: 'a.wav', output: 'out/a.wav', status: 'done' });
    reporter.outcome({
      input: HOSTILE,
      output: 'out/evil.wav',
      status: 'failed',
      reason: 'bad\tanswer\u001b]0;x\u0007',
    });
    reporter.finish({ done: 1, failed: 1 }, false);
    expect(stdout()).toBe(
      'done\ta.wav\tout/a.wav\nfailed\tcalls/\\x1b[2Jevil\\r.wav\tbad answer\\x1b]0;x\\x07\n',
    );
    expect(stderr()).toBe(`${summaryLine({ done: 1, failed: 1 }, false)}\n`);
  });

  it('with --quiet prints only the problems and no summary', async () => {
    const { io, stdout, stderr } = setup({ quiet: true });
    const reporter = await Reporter.start(io, { verb: 'redacting' });
    reporter.outcome({ input: 'a.wav', output: 'out/a.wav', status: 'done' });
    reporter.outcome({ input: 'b.wav', output: 'out/b.wav', status: 'rejected', reason: 'empty' });
    reporter.finish({ done: 1, rejected: 1 }, false);
    expect(stdout()).toBe('rejected\tb.wav\tempty\n');
    expect(stderr()).toBe('');
  });
});

describe('--json', () => {
  it('prints one object per file and a summary object, nothing else on stdout', async () => {
    const { io, stdout, stderr } = setup({ json: true, stdoutColumns: 80 });
    const reporter = await Reporter.start(io, { verb: 'redacting' });
    reporter.outcome({ input: HOSTILE, output: '', status: 'rejected', reason: 'no such file' });
    reporter.finish({ rejected: 1 }, false);
    const lines = stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    expect(lines).toEqual([
      { input: HOSTILE, output: null, status: 'rejected', reason: 'no such file' },
      { summary: { rejected: 1 } },
    ]);
    expect(stdout()).not.toMatch(/\u001b/);
    expect(stderr()).toBe('');
  });
});

describe('on a terminal', () => {
  it('prints a line of counts, then the problem files with their reasons, each cut to the width', async () => {
    const { io, stdout, stderr } = setup({ stdoutColumns: 40 });
    const reporter = await Reporter.start(io, { verb: 'redacting' });
    reporter.outcome({ input: 'a.wav', output: 'out/a.wav', status: 'done' });
    reporter.outcome({
      input: 'calls/2026/11/a-very-long-name-of-a-recording.wav',
      output: '',
      status: 'failed',
      reason: 'the service answered 500: something went wrong on its side',
    });
    reporter.outcome({ input: HOSTILE, output: '', status: 'pending', reason: 'job 7 still running' });
    reporter.finish({ done: 1, failed: 1, pending: 1 }, false);
    const lines = stdout().trimEnd().split('\n');
    expect(lines).toEqual([
      'failed    calls/2026/11/a-very-long-nam…',
      'pending   calls/\\x1b[2Jevil\\r.wav  job …',
    ]);
    for (const line of lines) expect(columnsOf(line)).toBeLessThanOrEqual(40);
    expect(stderr()).toMatch(/^redacted 1, skipped 0/);
  });

  it('lists at most 200 problem files and counts the rest', async () => {
    const { io, stdout } = setup({ stdoutColumns: 100, quiet: true });
    const reporter = await Reporter.start(io, { verb: 'redacting' });
    for (let i = 0; i < 250; i++) {
      reporter.outcome({ input: `f${i}.wav`, output: '', status: 'rejected', reason: 'empty' });
    }
    reporter.finish({ rejected: 250 }, false);
    const lines = stdout().trimEnd().split('\n');
    expect(lines).toHaveLength(201);
    expect(lines.at(-1)).toMatch(/^… and 50 more/);
  });
});

describe('compactSummary', () => {
  it('fits the width: zero counts go first, then the time', () => {
    const counts = { done: 118, skipped: 340, rejected: 4, failed: 0, pending: 0 };
    expect(compactSummary(counts, false, 252_000, 120)).toBe(
      'redacted 118 · skipped 340 · rejected 4 · failed 0 · pending 0 · 4:12',
    );
    expect(compactSummary(counts, false, 252_000, 50)).toBe('redacted 118 · skipped 340 · rejected 4 · 4:12');
    expect(compactSummary(counts, false, 252_000, 40)).toBe('redacted 118 · skipped 340 · rejected 4');
    expect(compactSummary({ 'would-send': 3, rejected: 1 }, true, 0, 200)).toBe(
      'would send 3 · would collect 0 · skipped 0 · rejected 1 · nothing sent',
    );
  });
});

describe('--stats', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('prints a plain progress line on stderr every interval, even when not a terminal', async () => {
    vi.useFakeTimers();
    const T0 = 1_800_000_000_000;
    vi.setSystemTime(T0);
    const { io, stderr } = setup({ statsIntervalMs: 30_000, quiet: true });
    const reporter = await Reporter.start(io, { verb: 'redacting', now: Date.now });
    const snapshot: Progress = {
      total: 10,
      done: 2,
      skipped: 1,
      rejected: 0,
      failed: 1,
      pending: 0,
      queued: 4,
      inFlight: 2,
      waiting: 0,
      bytesSent: 2_000_000,
      bytesTotal: 9_000_000,
      startedAt: T0,
    };
    reporter.progress(snapshot);
    await vi.advanceTimersByTimeAsync(30_000);
    reporter.progress({ ...snapshot, done: 5, bytesSent: 5_000_000 });
    await vi.advanceTimersByTimeAsync(30_000);
    reporter.finish({ done: 5, skipped: 1, failed: 1, rejected: 0, pending: 0 }, false);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(stderr().split('\n').filter(Boolean)).toEqual([
      'redacting 4/10 · 1 failed · 2 in flight · 2 MB sent · 0:30 elapsed · ETA 1:00',
      'redacting 7/10 · 1 failed · 2 in flight · 5 MB sent · 100 kB/s · 1:00 elapsed · ETA 0:30',
    ]);
  });
});
