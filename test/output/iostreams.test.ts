import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  createIOStreams,
  FORCED_PROGRESS_STATS_MS,
  type IOStreamsOptions,
} from '../../src/output/iostreams.js';

type Fake = PassThrough & { isTTY?: boolean; columns?: number };

function stream(tty: boolean, columns?: number): Fake {
  const s = new PassThrough() as Fake;
  if (tty) s.isTTY = true;
  if (columns !== undefined) s.columns = columns;
  return s;
}

function io(
  terminals: { stdout?: boolean; stderr?: boolean; columns?: number },
  options: Partial<IOStreamsOptions> = {},
) {
  const columns = terminals.columns ?? 100;
  return createIOStreams({
    streams: {
      stdout: stream(terminals.stdout === true, terminals.stdout ? columns : undefined),
      stderr: stream(terminals.stderr === true, terminals.stderr ? columns : undefined),
      stdin: Readable.from([]),
    },
    env: {},
    color: true,
    quiet: false,
    verbose: false,
    json: false,
    ...options,
  });
}

describe('live progress', () => {
  it('is on only when stdout and stderr are both terminals', () => {
    expect(io({ stdout: true, stderr: true }).progress).toBe(true);
    // `vredact redact … | cat`: stderr is a terminal, stdout is not: clean lines, no animation.
    expect(io({ stdout: false, stderr: true }).progress).toBe(false);
    expect(io({ stdout: true, stderr: false }).progress).toBe(false);
    expect(io({}).progress).toBe(false);
  });

  it('is off with --json or --quiet, and --no-progress turns it off anyway', () => {
    expect(io({ stdout: true, stderr: true }, { json: true }).progress).toBe(false);
    expect(io({ stdout: true, stderr: true }, { quiet: true }).progress).toBe(false);
    expect(io({ stdout: true, stderr: true }, { progress: false }).progress).toBe(false);
  });

  it('--progress turns it on when stderr is a terminal, whatever stdout is', () => {
    expect(io({ stdout: false, stderr: true }, { progress: true }).progress).toBe(true);
    expect(io({ stdout: true, stderr: true }, { progress: true, json: true }).progress).toBe(true);
  });

  it('--progress without a terminal to redraw on gives plain lines at an interval instead', () => {
    const piped = io({}, { progress: true });
    expect(piped.progress).toBe(false);
    expect(piped.statsIntervalMs).toBe(FORCED_PROGRESS_STATS_MS);
    // A terminal of 0 columns cannot hold a redrawn line either.
    const noWidth = io({ stdout: true, stderr: true, columns: 0 }, { progress: true });
    expect(noWidth.progress).toBe(false);
    expect(noWidth.statsIntervalMs).toBe(FORCED_PROGRESS_STATS_MS);
  });

  it('a terminal that cannot redraw a line (TERM=dumb) gets no live line, plain lines at an interval instead', () => {
    for (const progress of [undefined, true]) {
      const dumb = io({ stdout: true, stderr: true }, { env: { TERM: 'dumb' }, progress });
      expect(dumb.progress).toBe(false);
      expect(dumb.statsIntervalMs).toBe(FORCED_PROGRESS_STATS_MS);
    }
    // Not wanted (--no-progress, --quiet, a pipe): nothing, as on any terminal.
    expect(
      io({ stdout: true, stderr: true }, { env: { TERM: 'dumb' }, progress: false }).statsIntervalMs,
    ).toBe(undefined);
    expect(io({ stdout: true, stderr: true }, { env: { TERM: 'dumb' }, quiet: true }).statsIntervalMs).toBe(
      undefined,
    );
    expect(io({ stdout: false, stderr: true }, { env: { TERM: 'dumb' } }).statsIntervalMs).toBeUndefined();
  });

  it('--stats is kept as given, with or without a terminal', () => {
    expect(io({}, { statsIntervalMs: 30_000 }).statsIntervalMs).toBe(30_000);
    expect(io({ stdout: true, stderr: true }, { statsIntervalMs: 5000 }).statsIntervalMs).toBe(5000);
    expect(io({}).statsIntervalMs).toBeUndefined();
  });
});

describe('width', () => {
  it("is the terminal's, else COLUMNS, else 80", () => {
    expect(io({ stdout: true, stderr: true, columns: 61 }).width('stderr')).toBe(61);
    expect(io({}).width('stdout')).toBe(80);
    const env = createIOStreams({
      streams: { stdout: stream(false), stderr: stream(false), stdin: Readable.from([]) },
      env: { COLUMNS: '132' },
      color: false,
      quiet: false,
      verbose: false,
      json: false,
    });
    expect(env.width('stdout')).toBe(132);
  });
});

describe('a closed stdout', () => {
  it('is reported once to every listener instead of crashing, and to late listeners too', async () => {
    const streams = io({});
    const heard: string[] = [];
    streams.onStdoutClosed((error) => heard.push(`a:${error.code}`));
    const removed = streams.onStdoutClosed(() => heard.push('removed'));
    removed();
    const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    // Without a listener, an 'error' event throws: the test would fail here.
    streams.stdout.emit('error', epipe);
    streams.stdout.emit('error', epipe);
    expect(heard).toEqual(['a:EPIPE']);
    expect(streams.stdoutClosed).toBe(true);
    const late = await new Promise<string | undefined>((resolve) =>
      streams.onStdoutClosed((error) => resolve(error.code)),
    );
    expect(late).toBe('EPIPE');
  });

  it('an error on stderr is swallowed: nowhere is left to report it', () => {
    const streams = io({});
    expect(() => streams.stderr.emit('error', new Error('write EPIPE'))).not.toThrow();
  });
});
