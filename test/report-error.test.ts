import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CliError, ExitCode } from '../src/errors.js';
import { reportError } from '../src/report-error.js';

function run(error: unknown, verbose = false) {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const code = reportError(error, stderr, { verbose, secrets: ['vr_secret_token_1234'] });
  return { code, text };
}

describe('reportError', () => {
  it("escapes control characters of the service's text and masks the token: one line stays one line", () => {
    const hostile = 'bad request \u001b[2J\u001b]0;owned\u0007\rvr_secret_token_1234\nsecond line';
    const { code, text } = run(new Error(hostile));
    expect(code).toBe(ExitCode.partial);
    expect(text).not.toMatch(/[\u001b\u0007\r]/);
    expect(text).not.toContain('vr_secret_token_1234');
    expect(text.split('\n')[0]).toMatch(
      /^error: bad request \\x1b\[2J\\x1b\]0;owned\\x07\\r.*\\nsecond line$/,
    );
    expect(text).toMatch(/hint: run again with --verbose/);
  });

  it('a CliError gives its exit code and hint, escaped too', () => {
    const { code, text } = run(new CliError('refused \u001b[31mred', ExitCode.auth, 'log in \u0007again'));
    expect(code).toBe(ExitCode.auth);
    expect(text).toBe('error: refused \\x1b[31mred\nhint: log in \\x07again\n');
  });
});
