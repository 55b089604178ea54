/**
 * stdout has the whole-token backstop stderr has: a token that never came from the service (so the
 * client's scrub never saw it) is masked in what a command prints as data. Before, a file named after
 * the token, or a journal's input path holding it, was printed on stdout as it was.
 */
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { writeJournal } from '../helpers/journal.js';

const TOKEN = 'vr_backstop_0123456789abcdef';
const MASKED = 'vr_…cdef';
const dir = tempDirPerTest('vredact-stdout-backstop-');

/** An input folder holding one recording whose file name is the token. */
async function inputNamedAfterToken(): Promise<string> {
  const input = join(dir.path, 'in');
  await mkdir(input);
  await copyFile(fixture('speech-16bit.wav'), join(input, `${TOKEN}.wav`));
  return input;
}

function envWithToken(): NodeJS.ProcessEnv {
  // No service is reached: --dry-run and status read only the disk.
  return isolatedEnv(join(dir.path, 'config'), {
    VREDACT_TOKEN: TOKEN,
    VREDACT_BASE_URL: 'http://127.0.0.1:9',
  });
}

describe('stdout masks the token wherever it comes from', () => {
  it('redact --dry-run: a file name from the disk, TSV and --json', async () => {
    await inputNamedAfterToken();
    const env = envWithToken();
    const tsv = await runCli(['redact', '--dry-run', 'in', '-o', 'out'], { env, cwd: dir.path });
    expect(tsv.exitCode, String(tsv.stderr)).toBe(0);
    expect(String(tsv.stdout)).toBe(`would-send\tin/${MASKED}.wav\tout/${MASKED}.wav`);
    expect(String(tsv.stderr)).not.toContain(TOKEN);

    const json = await runCli(['redact', '--dry-run', '--json', 'in', '-o', 'out'], { env, cwd: dir.path });
    expect(json.exitCode, String(json.stderr)).toBe(0);
    const first = JSON.parse(String(json.stdout).split('\n')[0] ?? '') as Record<string, unknown>;
    expect(first).toMatchObject({ input: `in/${MASKED}.wav`, status: 'would-send' });
    expect(String(json.stdout)).not.toContain(TOKEN);
    expect(String(json.stderr)).not.toContain(TOKEN);
  });

  it('status: a journal of an older version whose input path holds the token', async () => {
    const out = join(dir.path, 'out');
    await writeJournal(out, [
      {
        at: '2026-11-21T02:00:01.000Z',
        event: 'failed',
        input: `/in/${TOKEN}.wav`,
        output: 'a.wav',
        reason: 'the service answered 400 Bad Request',
      },
    ]);
    for (const args of [[], ['--json']]) {
      const result = await runCli(['status', '-o', out, ...args], { env: envWithToken() });
      expect(result.exitCode, String(result.stderr)).toBe(0);
      expect(String(result.stdout)).toContain(`/in/${MASKED}.wav`);
      expect(String(result.stdout)).not.toContain(TOKEN);
      expect(String(result.stderr)).not.toContain(TOKEN);
    }
  });
});
