/**
 * `status` while a run looks for the job of an upload whose answer was lost: the upload is answered
 * 504 after its body was read, and the job listing the look makes is held until the test lets it go.
 * Before, status said the file was "being sent by the run under way"; nothing was being sent.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, isolatedEnv, runCli, tempDir } from '../helpers/cli.js';
import { jsonLines, until } from '../helpers/e2e.js';
import { REDACTION } from '../helpers/holding-service.js';
import { sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const RUN_GUARD_MS = 60_000;

describe(
  'vredact status: an upload whose answer was lost, its job being looked for',
  { timeout: 120_000 },
  () => {
    it('says its answer was lost and the run is looking for its job, not that it is being sent', async () => {
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const server = await startScriptedServer(async (req, res) => {
        if (req.url === REDACTION) return sendJson(res, 504, { error: 504, message: 'Gateway Time-out' });
        if (req.url?.startsWith('/api/jobs') && req.method === 'GET') {
          await released;
          return sendJson(res, 200, { jobs: [] });
        }
        return sendJson(res, 404, { error: 404, message: 'not found' });
      });
      const temp = await tempDir('vredact-status-lost-');
      try {
        const env = isolatedEnv(join(temp.path, '.config'), {
          VREDACT_BASE_URL: server.baseUrl,
          VREDACT_TOKEN: 'a-token-of-the-test',
        });
        const vredact = (args: string[]) => runCli(args, { env, cwd: temp.path, timeout: RUN_GUARD_MS });
        const run = vredact(['redact', fixture('speech-16bit.wav'), '-o', 'out', '--json']);
        await until(async () => server.received.some((request) => request.url?.startsWith('/api/jobs')));

        const status = await vredact(['status', '-o', 'out']);
        const line = String(status.stdout)
          .split('\n')
          .find((text) => text.includes('speech-16bit.wav'));
        expect(line, String(status.stderr)).toMatch(
          /^uploading\t.*\tits upload's answer was lost; the run under way is looking for its job\t/,
        );
        expect(String(status.stdout)).not.toContain('being sent');
        // --json says the same: it gave no reason and no sign of the lost answer.
        const asJson = await vredact(['status', '-o', 'out', '--json']);
        expect(JSON.parse(String(asJson.stdout)).files).toEqual([
          expect.objectContaining({
            state: 'uploading',
            answerLost: true,
            reason: "its upload's answer was lost; the run under way is looking for its job",
          }),
        ]);

        release();
        const ended = await run;
        expect(ended.exitCode, String(ended.stderr)).toBe(1);
        expect(jsonLines(ended.stdout)[0]).toMatchObject({ status: 'failed' });
        expect(server.received.filter((request) => request.url === REDACTION)).toHaveLength(1);
        const journal = jsonLines(
          await readFile(join(temp.path, 'out', '.vredact', 'journal.jsonl'), 'utf8'),
        );
        expect(journal.map((record) => record.event)).toEqual(['uploading', 'uploading']);
        expect(journal[1]).toMatchObject({ uploadName: journal[0]?.uploadName, answerLost: true });

        // Once the run is over, the next run's look is what is left.
        const after = await vredact(['status', '-o', 'out']);
        expect(String(after.stdout)).toMatch(
          /^pending\t.*\tits upload's answer was lost; the next run looks for its job first, then sends it again\t/m,
        );
        const afterJson = await vredact(['status', '-o', 'out', '--json']);
        expect(JSON.parse(String(afterJson.stdout)).files).toEqual([
          expect.objectContaining({
            state: 'pending',
            event: 'uploading',
            answerLost: true,
            reason: "its upload's answer was lost; the next run looks for its job first, then sends it again",
          }),
        ]);
      } finally {
        release();
        await server.close();
        await temp.cleanup();
      }
    });
  },
);
