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

/**
 * Both streams terminals, stdout of `columns`, or both pipes. No live line in-process: a terminal is
 * set up as `--no-progress` sets it.
 */
function setup(options: { stdoutColumns?: number } & Partial<IOStreamsOptions> = {}) {
  const { stdoutColumns, ...rest } = options;
  const terminal = stdoutColumns !== undefined;
  const out = capture(terminal, stdoutColumns);
  const err = capture(terminal, stdoutColumns);
  const io = createIOStreams({
    streams: { stdout: out.stream, stderr: err.stream, stdin: Readable.from([]) },
    env: {},
    color: false,
    quiet: false,
    verbose: false,
    json: false,
    ...(terminal ? { progress: false } : {}),
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

describe('an expected pending outcome (a job a --no-wait run submitted)', () => {
  it('is left out under --quiet, where a pending file that is a problem is printed', async () => {
    const { io, stdout } = setup({ quiet: true });
    const reporter = await Reporter.start(io, { verb: 'redacting' });
    reporter.outcome(
      { input: 'a.wav', output: 'out/a.wav', status: 'pending', reason: 'submitted', jobId: 'j1' },
      true,
    );
    reporter.outcome({
      input: 'b.wav',
      output: 'out/b.wav',
      status: 'pending',
      reason: 'upload interrupted',
    });
    reporter.finish({ pending: 2 }, false);
    expect(stdout()).toBe('pending\tb.wav\tupload interrupted\n');
  });

  it('is printed without --quiet', async () => {
    const { io, stdout } = setup({});
    const reporter = await Reporter.start(io, { verb: 'redacting' });
    reporter.outcome(
      { input: 'a.wav', output: 'out/a.wav', status: 'pending', reason: 'submitted', jobId: 'j1' },
      true,
    );
    reporter.finish({ pending: 1 }, false, true);
    expect(stdout()).toBe('pending\ta.wav\tsubmitted\n');
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
      // A short name would leave the reason 4 columns: the name keeps its end, the reason gets a row.
      'failed    …-long-name-of-a-recording.wav',
      '  the service answered 500: something w…',
      'pending   calls/\\x1b[2Jevil\\r.wav',
      '  job 7 still running',
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

describe('the problem list on a terminal', () => {
  it('lists failed, then rejected, then pending at the service, then pending never sent, whatever came first', async () => {
    const { io, stdout } = setup({ stdoutColumns: 120, quiet: true });
    const reporter = await Reporter.start(io, { verb: 'redacting' });
    // A second Ctrl-C: hundreds never sent are reported before the uploads it cut short.
    for (let i = 0; i < 469; i++) {
      const reason = 'not finished: interrupted (not sent)';
      reporter.outcome({ input: `in480/q${i}.wav`, output: '', status: 'pending', reason });
    }
    for (const name of ['cut1', 'cut2', 'cut3']) {
      reporter.outcome({
        input: `in480/${name}.wav`,
        output: '',
        status: 'pending',
        reason: 'not finished: interrupted',
      });
    }
    reporter.outcome({
      input: 'in480/job.wav',
      output: '',
      status: 'pending',
      reason: 'job 7 still processing',
      jobId: '7',
    });
    reporter.outcome({
      input: 'in480/bad.wav',
      output: '',
      status: 'rejected',
      reason: 'not a WAV or MP3 file',
    });
    reporter.outcome({
      input: 'in480/err.wav',
      output: '',
      status: 'failed',
      reason: 'the service answered 500',
    });
    reporter.finish({ pending: 473, rejected: 1, failed: 1 }, false);
    const lines = stdout().trimEnd().split('\n');
    expect(lines).toHaveLength(201);
    expect(lines.slice(0, 7)).toEqual([
      'failed    in480/err.wav  the service answered 500',
      'rejected  in480/bad.wav  not a WAV or MP3 file',
      'pending   in480/cut1.wav  not finished: interrupted',
      'pending   in480/cut2.wav  not finished: interrupted',
      'pending   in480/cut3.wav  not finished: interrupted',
      'pending   in480/job.wav  job 7 still processing',
      'pending   in480/q0.wav  not finished: interrupted (not sent)',
    ]);
    // By path within a kind (q0, q1, q10, q100 …): the last 6 of the 200 kept, q94 to q99, are cut.
    expect(lines[199]).toBe('pending   in480/q93.wav  not finished: interrupted (not sent)');
    expect(lines[200]).toMatch(/^… and 275 more/);
  });

  it('cuts a long name keeping its end (the file name and its extension), so the reason shows whole', async () => {
    const { io, stdout } = setup({ stdoutColumns: 200, quiet: true });
    const reporter = await Reporter.start(io, { verb: 'redacting' });
    const name = `nasty/bad-${'M'.repeat(240)}.wav`;
    reporter.outcome({ input: name, output: '', status: 'rejected', reason: 'not a WAV or MP3 file' });
    reporter.outcome({
      input: `日本/${'語'.repeat(120)}.mp3`,
      output: '',
      status: 'failed',
      reason: 'too long',
    });
    reporter.finish({ rejected: 1, failed: 1 }, false);
    const lines = stdout().trimEnd().split('\n');
    expect(lines[0]).toMatch(/^failed {4}…語+\.mp3 {2}too long$/);
    expect(lines[1]).toMatch(/^rejected {2}…M+\.wav {2}not a WAV or MP3 file$/);
    for (const line of lines) expect(columnsOf(line)).toBeLessThanOrEqual(200);
    expect(columnsOf(lines[1]!)).toBe(200);
  });

  it('cuts the reason only when a short name leaves it no room', async () => {
    const { io, stdout } = setup({ stdoutColumns: 50, quiet: true });
    const reporter = await Reporter.start(io, { verb: 'redacting' });
    const reason = 'the service answered 500: something went wrong on its side';
    reporter.outcome({ input: `calls/2026/${'x'.repeat(60)}.wav`, output: '', status: 'failed', reason });
    reporter.finish({ failed: 1 }, false);
    expect(stdout()).toBe(`failed    …${'x'.repeat(19)}.wav  the service a…\n`);
  });
});

describe('an interrupt that ended the deciding', () => {
  it('counts the inputs given no outcome as undecided: in the summary line, the JSON summary and the compact one', async () => {
    const lines = setup();
    const reporter = await Reporter.start(lines.io, { verb: 'redacting', total: 5 });
    reporter.outcome({ input: 'a.wav', output: 'out/a.wav', status: 'skipped', reason: 'already done' });
    reporter.finish({ skipped: 1 }, false, false, true);
    expect(lines.stderr()).toBe(
      'redacted 0, skipped 1 (already done), rejected 0, failed 0, pending 0, undecided 4 (interrupted)\n',
    );

    const json = setup({ json: true });
    const dry = await Reporter.start(json.io, { verb: 'checking', total: 3 });
    dry.outcome({ input: 'a.wav', output: 'out/a.wav', status: 'would-send' });
    dry.finish({ 'would-send': 1 }, true, false, true);
    expect(json.stdout().trim().split('\n').at(-1)).toBe(
      '{"summary":{"would-send":1,"undecided":2},"dryRun":true,"interrupted":true}',
    );
    expect(compactSummary({ skipped: 311_990, undecided: 688_010 }, false, 9_000, 120)).toBe(
      'redacted 0 · skipped 311990 · rejected 0 · failed 0 · pending 0 · undecided 688010 · 0:09',
    );
  });

  it('says nothing of it when every input has its outcome, or when the run was not interrupted', async () => {
    const { io, stderr } = setup();
    const reporter = await Reporter.start(io, { verb: 'redacting', total: 1 });
    reporter.outcome({ input: 'a.wav', output: 'out/a.wav', status: 'done' });
    reporter.finish({ done: 1 }, false, false, true);
    const partial = await Reporter.start(io, { verb: 'redacting', total: 3 });
    partial.finish({}, false);
    expect(stderr()).not.toMatch(/undecided/);
  });
});

describe('a batch stopped by a failure, which ends the deciding too', () => {
  it('counts the inputs given no outcome as undecided, saying the batch stopped, and not as interrupted', async () => {
    const lines = setup();
    const reporter = await Reporter.start(lines.io, { verb: 'redacting', total: 5 });
    reporter.outcome({ input: 'a.wav', output: 'out/a.wav', status: 'failed', reason: 'refused' });
    reporter.finish({ failed: 1 }, false, false, false, true);
    expect(lines.stderr()).toBe(
      'redacted 0, skipped 0 (already done), rejected 0, failed 1, pending 0, undecided 4 (the batch stopped)\n',
    );

    const json = setup({ json: true });
    const stopped = await Reporter.start(json.io, { verb: 'redacting', total: 3 });
    stopped.outcome({ input: 'a.wav', output: 'out/a.wav', status: 'failed', reason: 'refused' });
    stopped.finish({ failed: 1 }, false, false, false, true);
    expect(json.stdout().trim().split('\n').at(-1)).toBe('{"summary":{"failed":1,"undecided":2}}');
  });
});

describe('files left by --min-age', () => {
  it('are counted among the skipped, and apart from the done ones', () => {
    const counts = { done: 1, skipped: 5, rejected: 0, failed: 0, pending: 0, tooRecent: 2 };
    expect(summaryLine(counts, false)).toBe(
      'redacted 1, skipped 5 (already done 3, too recent for --min-age 2), rejected 0, failed 0, pending 0',
    );
    expect(summaryLine({ 'would-send': 1, skipped: 2, tooRecent: 2 }, true)).toBe(
      'dry run: would send 1, would collect 0, skipped 2 (already done 0, too recent for --min-age 2), rejected 0; nothing was sent',
    );
    expect(compactSummary(counts, false, 4_000, 120)).toBe(
      'redacted 1 · skipped 5 (2 too recent) · rejected 0 · failed 0 · pending 0 · 0:04',
    );
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

  it('in a narrow terminal, never leaves out a count that is not zero: what does not fit is cut, with …', () => {
    // 20 columns less the tick and the live line's margin: the 20 files redacted stay in sight.
    expect(compactSummary({ done: 20, rejected: 1 }, false, 11_000, 16)).toBe('redacted 20 · r…');
    expect(compactSummary({ done: 0, rejected: 1, pending: 20 }, false, 4_000, 24)).toBe(
      'rejected 1 · pending 20',
    );
    expect(compactSummary({ done: 3, pending: 9 }, false, 4_000, 36)).toBe('redacted 3 · pending 9 · 0:04');
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
      underWay: 2,
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
      // The last line is the run's counts, under --quiet too: a log's last word on the run.
      'redacted 5, skipped 1 (already done), rejected 0, failed 1, pending 0',
    ]);
  });

  it('ends with the summary line under --quiet, but not with --json (its summary is on stdout)', async () => {
    const quiet = setup({ statsIntervalMs: 60_000, quiet: true });
    const plain = await Reporter.start(quiet.io, { verb: 'redacting' });
    plain.outcome({ input: 'a.wav', output: 'out/a.wav', status: 'done' });
    plain.finish({ done: 1 }, false);
    expect(quiet.stdout()).toBe('');
    expect(quiet.stderr()).toBe(`${summaryLine({ done: 1 }, false)}\n`);

    const json = setup({ statsIntervalMs: 60_000, quiet: true, json: true });
    const scripted = await Reporter.start(json.io, { verb: 'redacting' });
    scripted.finish({ done: 1 }, false);
    expect(json.stderr()).toBe('');
    expect(JSON.parse(json.stdout())).toEqual({ summary: { done: 1 } });
  });
});
