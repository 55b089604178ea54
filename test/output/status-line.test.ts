/** A run's progress on stderr: a live line on a terminal, plain `--stats` lines for logs, nothing otherwise. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { countsLineWanted, startStatusLine } from '../../src/output/status-line.js';
import { recordingStream, SGR } from '../helpers/terminal-stream.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** The IOStreams pieces the status line takes, over a recording stderr. */
function io(options: { progress: boolean; isTTY: boolean; statsIntervalMs?: number; width?: number }) {
  const stderr = recordingStream(options.isTTY, options.width);
  return {
    stderr,
    progress: options.progress,
    color: false,
    statsIntervalMs: options.statsIntervalMs,
    width: () => options.width ?? 80,
  };
}

/** A text function that counts its calls and remembers the widths it was asked for. */
function counter() {
  let n = 0;
  const widths: Array<number | undefined> = [];
  const text = (columns?: number) => {
    widths.push(columns);
    n++;
    return `redacting ${n}/10 · 0:0${n} elapsed`;
  };
  return { text, widths };
}

describe('startStatusLine', () => {
  it('in a pipe without --stats, writes nothing and asks for no text', async () => {
    const streams = io({ progress: false, isTTY: false });
    const { text, widths } = counter();
    const line = await startStatusLine(streams, text);
    expect(line.live).toBe(false);
    vi.advanceTimersByTime(60_000);
    line.finish(true, 'redacted 10 files');
    expect(streams.stderr.text()).toBe('');
    expect(widths).toEqual([]);
  });

  it('with --stats and no terminal, writes a whole plain line every interval, and stops when finished', async () => {
    const streams = io({ progress: false, isTTY: false, statsIntervalMs: 10_000 });
    const { text, widths } = counter();
    const line = await startStatusLine(streams, text);
    expect(streams.stderr.text()).toBe('');
    vi.advanceTimersByTime(30_000);
    expect(streams.stderr.text()).toBe(
      'redacting 1/10 · 0:01 elapsed\nredacting 2/10 · 0:02 elapsed\nredacting 3/10 · 0:03 elapsed\n',
    );
    // Whole lines: the text is not fitted to any width, and nothing is redrawn.
    expect(widths).toEqual([undefined, undefined, undefined]);
    expect(streams.stderr.text()).not.toContain('\u001b');
    line.finish(false, 'failed');
    vi.advanceTimersByTime(30_000);
    expect(streams.stderr.text().split('\n')).toHaveLength(4);
    // Without a live line, the final text is not written here (the caller reports it).
    expect(streams.stderr.text()).not.toContain('failed');
  });

  it('on a terminal, redraws the line fitted to the width less the spinner and the room of an echoed ^C, and leaves the final line', async () => {
    const streams = io({ progress: true, isTTY: true, width: 40 });
    const { text, widths } = counter();
    const line = await startStatusLine(streams, text);
    expect(line.live).toBe(true);
    // 40 columns, less 2 for the spinner and its space, less 2 that keep the cursor off the last
    // column (the terminal echoes `^C` there).
    expect(line.columns).toBe(36);
    vi.advanceTimersByTime(300);
    expect(widths.length).toBeGreaterThan(1);
    expect(new Set(widths)).toEqual(new Set([36]));
    expect(streams.stderr.text()).toContain('redacting 1/10');
    line.finish(true, 'redacted 10 files in 0:12, 3.1 MB sent, 0 failed, all verified');
    // What follows the last cursor movement: the line left on screen.
    const final = streams.stderr
      .text()
      .split(/\u001b\[[^a-zA-Z]*[a-zA-Z]/)
      .at(-1)!;
    expect(final.startsWith('✔ redacted 10 files')).toBe(true);
    expect(final.endsWith('\n')).toBe(true);
    // Cut to the terminal: the tick and its space plus at most 36 columns.
    expect(final.length - 1).toBeLessThanOrEqual(38);
    expect(final.length - 1).toBeGreaterThan(30);
    expect(streams.stderr.text()).not.toMatch(SGR);
    const finished = streams.stderr.text();
    vi.advanceTimersByTime(10_000);
    expect(streams.stderr.text()).toBe(finished);
  });

  it('on a terminal, a failed run leaves a cross', async () => {
    const streams = io({ progress: true, isTTY: true, width: 80 });
    const line = await startStatusLine(streams, counter().text);
    line.finish(false, '2 of 10 files failed');
    expect(streams.stderr.text().endsWith('✖ 2 of 10 files failed\n')).toBe(true);
  });

  it('stop leaves nothing, may be called again, and makes finish a no-op', async () => {
    const streams = io({ progress: true, isTTY: true, width: 80, statsIntervalMs: 1_000 });
    const line = await startStatusLine(streams, counter().text);
    vi.advanceTimersByTime(2_500);
    line.stop();
    line.stop();
    const stopped = streams.stderr.text();
    line.finish(true, 'never shown');
    vi.advanceTimersByTime(10_000);
    expect(streams.stderr.text()).toBe(stopped);
    expect(stopped).not.toContain('never shown');
    // The two --stats lines written before the stop stay; the live line does not.
    expect(stopped.match(/\n/g)).toHaveLength(2);
  });
});

describe('countsLineWanted', () => {
  it('ends a run with its counts line but under --quiet without --stats, and never under --json', () => {
    const wanted = (quiet: boolean, json: boolean, statsIntervalMs?: number) =>
      countsLineWanted({ quiet, json, statsIntervalMs });
    expect(wanted(false, false)).toBe(true);
    expect(wanted(true, false)).toBe(false);
    expect(wanted(true, false, 600_000)).toBe(true);
    expect(wanted(false, true, 600_000)).toBe(false);
  });
});
