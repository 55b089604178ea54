/** The spinner on stderr: silent without live progress, a final plain line with --no-color. */
import { Readable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createContext } from '../../src/context.js';
import { quietSpinner, startSpinner } from '../../src/output/spinner.js';
import { recordingStream, SGR } from '../helpers/terminal-stream.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('startSpinner', () => {
  it('writes nothing at all without live progress, even on a terminal', async () => {
    for (const isTTY of [false, true]) {
      const stderr = recordingStream(isTTY, 80);
      const spinner = await startSpinner({ progress: false, stderr, color: true }, 'Checking');
      expect(spinner).toBe(quietSpinner);
      spinner.update('still checking');
      vi.advanceTimersByTime(5_000);
      spinner.succeed('Checked');
      spinner.fail('Failed');
      spinner.stop();
      expect(stderr.text()).toBe('');
    }
  });

  it('animates the text on the terminal and leaves a final line with a plain tick', async () => {
    const stderr = recordingStream(true, 80);
    const spinner = await startSpinner({ progress: true, stderr, color: false }, 'Checking the token');
    // The first frame is drawn at once.
    expect(stderr.text()).toContain('Checking the token');
    spinner.update('Listing the jobs');
    vi.advanceTimersByTime(250);
    expect(stderr.text()).toContain('Listing the jobs');
    spinner.succeed('3 jobs');
    expect(stderr.text().endsWith('✔ 3 jobs\n')).toBe(true);
    expect(stderr.text()).not.toMatch(SGR);
    // Nothing more once finished.
    const finished = stderr.text();
    vi.advanceTimersByTime(5_000);
    expect(stderr.text()).toBe(finished);
  });

  it('leaves a plain cross for a failure', async () => {
    const stderr = recordingStream(true, 80);
    const spinner = await startSpinner({ progress: true, stderr, color: false }, 'Uploading');
    spinner.fail('the service refused the file');
    expect(stderr.text().endsWith('✖ the service refused the file\n')).toBe(true);
    expect(stderr.text()).not.toMatch(SGR);
  });

  it('stopped, leaves no line behind and gives the cursor back', async () => {
    const stderr = recordingStream(true, 80);
    const spinner = await startSpinner({ progress: true, stderr, color: false }, 'Waiting');
    vi.advanceTimersByTime(1_000);
    spinner.stop();
    const text = stderr.text();
    expect(text).not.toContain('\n');
    // Whatever hid the cursor showed it again, and the last thing done was to clear the line.
    expect(text.split('\u001b[?25l').length).toBe(text.split('\u001b[?25h').length);
    expect(text.endsWith('\u001b[2K') || text.endsWith('\u001b[?25h')).toBe(true);
  });

  it('with NO_COLOR, the context turns colour off and no colour code reaches the terminal', async () => {
    const stderr = recordingStream(true, 80);
    const stdout = recordingStream(true, 80);
    const ctx = await createContext(
      {},
      { streams: { stdout, stderr, stdin: Readable.from([]) }, env: { NO_COLOR: '1' } },
    );
    expect(ctx.io.progress).toBe(true);
    expect(ctx.io.color).toBe(false);
    const spinner = await startSpinner(ctx.io, 'Downloading');
    vi.advanceTimersByTime(1_000);
    spinner.succeed('Downloaded 2 files');
    expect(stderr.text()).toContain('✔ Downloaded 2 files\n');
    expect(stderr.text()).not.toMatch(SGR);
    expect(stdout.text()).toBe('');
  });

  describe('narrowed while it draws', () => {
    /** A spinner whose text fills the terminal's width, less the frame and the echo's room. */
    async function wideSpinner(rewraps: boolean) {
      const stderr = recordingStream(true, 100);
      const text = () => 'x'.repeat((stderr.columns ?? 0) - 4);
      const spinner = await startSpinner({ progress: true, stderr, color: false, rewraps }, text(), text);
      const drawn = stderr.text().length;
      stderr.columns = 30;
      stderr.emit('resize');
      return { spinner, stderr, sinceResize: stderr.text().slice(drawn) };
    }
    const count = (text: string, sequence: string) => text.split(sequence).length - 1;

    it('in a terminal that rewraps, erases every row the old line now takes, and draws it at once at the new width', async () => {
      const { spinner, stderr, sinceResize } = await wideSpinner(true);
      // The frame, its space and 96 columns take 4 rows at 30 columns: the cursor's and 3 above it.
      expect(count(sinceResize, '\u001b[2K')).toBe(4);
      expect(count(sinceResize, '\u001b[1A')).toBe(3);
      expect(stripVTControlCharacters(sinceResize)).toContain(` ${'x'.repeat(26)}`);
      expect(sinceResize).not.toContain('x'.repeat(27));
      // Written with autowrap off, and on again after it: a line too wide for a terminal narrowed
      // before it said so is cut at the edge, on its one row.
      expect(sinceResize).toContain(`\u001b[?7l${'x'.repeat(26)}\u001b[?7h`);
      spinner.stop();
      expect(count(stderr.text(), '\u001b[?25l')).toBe(count(stderr.text(), '\u001b[?25h'));
    });

    it('in a terminal not known to rewrap, erases its own row only: the rows above may be other output', async () => {
      const { spinner, sinceResize } = await wideSpinner(false);
      expect(count(sinceResize, '\u001b[2K')).toBe(1);
      expect(sinceResize).not.toContain('\u001b[1A');
      expect(stripVTControlCharacters(sinceResize)).toContain(` ${'x'.repeat(26)}`);
      spinner.stop();
    });

    it('counts the rows from the narrowest line drawn lately: the one on screen when the terminal rewrapped may be it', async () => {
      const stderr = recordingStream(true, 100);
      const spinner = await startSpinner(
        { progress: true, stderr, color: false, rewraps: true },
        'x'.repeat(40),
      );
      // Drawn for 100 columns after the terminal was narrowed, before it said so (tmux waits).
      vi.advanceTimersByTime(200);
      spinner.update('x'.repeat(90));
      const drawn = stderr.text().length;
      stderr.columns = 30;
      stderr.emit('resize');
      // 42 columns take 2 rows at 30 (92 would take 4): one row above the cursor's.
      expect(count(stderr.text().slice(drawn), '\u001b[1A')).toBe(1);
      spinner.stop();
    });

    it('widened, erases its own row only', async () => {
      const stderr = recordingStream(true, 40);
      const spinner = await startSpinner(
        { progress: true, stderr, color: false, rewraps: true },
        'x'.repeat(36),
      );
      const drawn = stderr.text().length;
      stderr.columns = 120;
      stderr.emit('resize');
      expect(stderr.text().slice(drawn)).not.toContain('\u001b[1A');
      spinner.stop();
    });
  });
});
