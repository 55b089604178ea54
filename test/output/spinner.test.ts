/** The spinner on stderr: silent without live progress, a final plain line with --no-color. */
import { Readable } from 'node:stream';
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
    expect(stderr.text()).toContain(' Checking the token');
    spinner.update('Listing the jobs');
    vi.advanceTimersByTime(250);
    expect(stderr.text()).toContain(' Listing the jobs');
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
});
