/**
 * A hangup (the terminal closed, an ssh session dropped) during a batch, through the built binary:
 * in a real terminal, the uploads in flight finish and are recorded, nothing new is sent, exit 130;
 * under nohup, whose outputs are no terminal, the batch goes on to the end.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, isolatedEnv, tempDirPerTest } from '../helpers/cli.js';
import { listFiles, until } from '../helpers/e2e.js';
import { type HoldingService, holdingService, uploads } from '../helpers/holding-service.js';
import { speechInputs } from '../helpers/speech-files.js';
import { hasTmux, startTmux, type TmuxTerminal } from '../helpers/tmux.js';

const TOKEN = 'vr_hangup_0123456789abcdef';
const FILES = 6;
const dir = tempDirPerTest('vredact-hangup-');

async function journal(out: string): Promise<Array<{ event: string; input: string }>> {
  const text = await readFile(join(out, '.vredact', 'journal.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { event: string; input: string });
}

/** Resolves when `check` holds or `ended` settles, whichever comes first (set-up, not an assertion). */
async function untilOrEnded(check: () => Promise<boolean>, ended: Promise<unknown>): Promise<void> {
  let over = false;
  const end = () => {
    over = true;
  };
  ended.then(end, end);
  await until(async () => over || (await check()), 30_000);
}

let service: HoldingService | undefined;
let term: TmuxTerminal | undefined;
afterEach(async () => {
  await term?.kill();
  term = undefined;
  service?.release();
  await service?.server.close();
  service = undefined;
});

describe.skipIf(!hasTmux)('a hangup of the terminal a run is in', () => {
  it('lets the uploads in flight finish and records them, sends nothing more, and exits 130', async () => {
    service = await holdingService();
    await speechInputs(dir.path, FILES);
    const out = join(dir.path, 'out');
    const log = join(dir.path, 'stderr.log');
    const env = isolatedEnv(join(dir.path, '.config'), {
      VREDACT_BASE_URL: service.server.baseUrl,
      VREDACT_TOKEN: TOKEN,
    });
    // A terminal's shell leads its session: when the terminal goes, the system sends it SIGHUP, and
    // it sends SIGHUP on to its jobs, as a login shell or an ssh session's does.
    term = await startTmux(`PS1='$ ' exec bash --norc --noprofile -i`, { cwd: dir.path, env });
    await term.waitFor(/^\$/);
    // stdout is the terminal; stderr goes to a file, to learn when the run has taken the hangup in.
    // The bash around vredact outlives the hangup (a trap is no ignore: vredact starts with SIGHUP's
    // default) to write its exit status.
    await term.keys(
      `bash -c 'trap : HUP; node ${BIN} redact in -c 2 -o out 2>stderr.log; echo $? > status'`,
      'Enter',
    );
    await until(async () => uploads(service!.server) === 2);
    await term.kill();
    const status = join(dir.path, 'status');
    const ended = until(async () => /^\d+\n$/.test(await readFile(status, 'utf8').catch(() => '')), 30_000);
    await untilOrEnded(async () => (await readFile(log, 'utf8').catch(() => '')).includes('hangup'), ended);
    service.release();
    await ended;

    expect(Number(await readFile(status, 'utf8')), await readFile(log, 'utf8')).toBe(130);
    expect(uploads(service.server)).toBe(2);
    // Each upload sent is done; those journaled ahead to be sent were withdrawn (how many the checks
    // had reached by the hangup depends on the machine's pace); none is left `uploading`.
    const last = new Map((await journal(out)).map((line) => [line.input, line.event]));
    const events = [...last.values()];
    expect(events.filter((event) => event === 'done')).toHaveLength(2);
    expect(events.filter((event) => event !== 'done' && event !== 'withdrawn')).toEqual([]);
    expect((await listFiles(out)).filter((name) => name.endsWith('.wav'))).toHaveLength(2);
    expect(await readFile(log, 'utf8')).toMatch(
      /^warning: hangup: finishing the 2 uploads in flight, then exiting$/m,
    );
  }, 60_000);
});

describe('a hangup of a run started with nohup', () => {
  it('is ignored: the run goes on to the end and exits 0', async () => {
    service = await holdingService();
    const inputs = await speechInputs(dir.path, FILES);
    const out = join(dir.path, 'out');
    // nohup sets SIGHUP to be ignored, then runs node, which sets it back to the default at its start.
    const child = execa('nohup', ['node', BIN, 'redact', inputs, '-c', '2', '-o', out], {
      cwd: dir.path,
      env: isolatedEnv(join(dir.path, '.config'), {
        VREDACT_BASE_URL: service.server.baseUrl,
        VREDACT_TOKEN: TOKEN,
      }),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    await until(async () => uploads(service!.server) === 2);
    child.kill('SIGHUP');
    await untilOrEnded(async () => stderr.includes('hangup'), child);
    service.release();
    const run = await child;

    expect(run.signal, stderr).toBeUndefined();
    expect(run.exitCode, stderr).toBe(0);
    expect(uploads(service.server)).toBe(FILES);
    expect((await journal(out)).filter((line) => line.event === 'done')).toHaveLength(FILES);
    expect(stderr).toMatch(/^hangup ignored/m);
  }, 60_000);
});
