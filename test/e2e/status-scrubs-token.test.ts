/**
 * A journal of an older version may hold a reason with the token in it (answers that echoed it were
 * scrubbed less then): `status` shows it masked, as the client masks answers now. Before, it printed
 * the reason as journaled, token and all.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { writeJournal } from '../helpers/journal.js';

const TOKEN = 'vr_status_scrub_0123456789abcdef';
const MASKED = 'vr_…cdef';
const REASON = `redacting a.wav: the service answered 400 Bad Request: bad header Authorization: Bearer ${TOKEN}`;
const dir = tempDirPerTest('vredact-status-scrub-');

/** An output folder whose journal holds a failed line whose reason echoes the token. */
async function oldJournal(): Promise<string> {
  const out = join(dir.path, 'out');
  await writeJournal(out, [
    {
      at: '2026-11-21T02:00:01.000Z',
      event: 'failed',
      input: '/in/a.wav',
      output: 'a.wav',
      reason: REASON,
    },
  ]);
  return out;
}

const SHOWN = REASON.replace(TOKEN, MASKED);

describe('status masks the configured token in what a journal holds', () => {
  it('the token from VREDACT_TOKEN: TSV and --json', async () => {
    const out = await oldJournal();
    const env = isolatedEnv(join(dir.path, 'config'), { VREDACT_TOKEN: TOKEN });
    const tsv = await runCli(['status', '-o', out], { env });
    expect(tsv.exitCode, String(tsv.stderr)).toBe(0);
    expect(String(tsv.stdout).split('\t').slice(0, 3)).toEqual(['failed', '/in/a.wav', SHOWN]);
    const json = await runCli(['status', '-o', out, '--json'], { env });
    expect(json.exitCode, String(json.stderr)).toBe(0);
    expect(String(json.stdout)).not.toContain(TOKEN);
    expect(String(json.stdout)).toContain(JSON.stringify(SHOWN));
  });

  it('the stored token', async () => {
    const out = await oldJournal();
    const env = isolatedEnv(join(dir.path, 'config'));
    const set = await runCli(['config', 'set', 'token', '-'], { env, input: `${TOKEN}\n` });
    expect(set.exitCode, String(set.stderr)).toBe(0);
    const json = await runCli(['status', '-o', out, '--json'], { env });
    expect(json.exitCode, String(json.stderr)).toBe(0);
    expect(String(json.stdout)).not.toContain(TOKEN);
    expect(String(json.stdout)).toContain(JSON.stringify(SHOWN));
  });

  it('no token configured: the reason as journaled', async () => {
    const out = await oldJournal();
    const env = isolatedEnv(join(dir.path, 'config'));
    const tsv = await runCli(['status', '-o', out], { env });
    expect(String(tsv.stdout).split('\t').slice(0, 3)).toEqual(['failed', '/in/a.wav', REASON]);
  });
});
