/**
 * What scripts get on the paths where a command ends early: with `--json`, stdout is JSON whatever
 * ended the command, and the exit code says how it ended.
 */
import { describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { startScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'vr_machine_output_0123456789';
const dir = tempDirPerTest('vredact-machine-output-');

const env = (baseUrl: string) => isolatedEnv(dir.path, { VREDACT_BASE_URL: baseUrl, VREDACT_TOKEN: TOKEN });

/** The start of a job's content: `count` items, more than one batch of output, and no end. */
function contentCutShort(count: number): string {
  const items = Array.from({ length: count }, (_, id) =>
    JSON.stringify({ id, job_id: 'j', file_name: `f${id}.wav`, audio_duration: 75 }),
  );
  return `{"jobContent":[${items.join(',')}`;
}

describe('jobs content --json whose answer breaks off midway', () => {
  test('prints a closed JSON array of the items read, and exits 1 with the error on stderr', async () => {
    const server = await startScriptedServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // Once the items are written, the connection drops before the answer is whole.
      res.write(contentCutShort(3000), () => setTimeout(() => res.socket?.destroy(), 100));
    });
    try {
      const run = await runCli(['jobs', 'content', 'j', '--json', '--max-retries', '0'], {
        env: env(server.baseUrl),
      });
      expect(run.exitCode).toBe(1);
      expect(String(run.stderr)).toMatch(/^error: reading job j: /m);
      const items = JSON.parse(String(run.stdout)) as Array<{ file_name: string }>;
      expect(items.length).toBeGreaterThan(0);
      expect(items.length).toBeLessThanOrEqual(3000);
      expect(items[0]).toMatchObject({ file_name: 'f0.wav' });
    } finally {
      await server.close();
    }
  });
});
