/** `vredact login`'s hidden prompt at a real terminal: the end of input gives no token, not an error. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { type E2E, setup } from '../helpers/e2e.js';
import { type Pty, runInPty } from '../helpers/pty.js';

let e2e: E2E | undefined;
let term: Pty | undefined;
afterEach(async () => {
  term?.kill();
  term = undefined;
  await e2e?.cleanup();
  e2e = undefined;
});

describe('Ctrl-D at the login prompt', () => {
  it('is no token given: one line, exit 2, nothing stored, no Abort', async () => {
    e2e = await setup();
    term = runInPty(`node ${BIN} login; echo "exit=$?" > exit.txt`, {
      cwd: e2e.dir,
      env: e2e.env,
      columns: 120,
    });
    await term.waitFor(/Paste your usage token/);
    term.type('\x04');
    await term.exited;
    expect((await readFile(join(e2e.dir, 'exit.txt'), 'utf8')).trim()).toBe('exit=2');
    expect(term.output()).toMatch(/error: no token was given/);
    expect(term.output()).not.toMatch(/Abort/i);
  });
});
