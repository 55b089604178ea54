/**
 * An upload whose answer was lost (a gateway's 504) is looked for among the jobs before the run ends;
 * here the job listing fails, for a moment (a 503, tried again each round) or for good (a 404). Its
 * outcome says what the look met, in `--json` and in the plain lines alike, as an upload accepted
 * without a job id says it ("its last look: …"). Before, a warning on stderr, once a run, was all
 * that told it (nothing at all for a 404), and the file's line read as if its job had been looked
 * for and was not there.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, isolatedEnv, runCli, tempDir } from '../helpers/cli.js';
import { jsonLines } from '../helpers/e2e.js';
import { REDACTION } from '../helpers/holding-service.js';
import { sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const RUN_GUARD_MS = 60_000;
const LOST =
  'the service answered 504 Gateway Timeout: Gateway Time-out; the service may have taken it: the next run looks for its job before sending again';

const listings: Array<[string, number, RegExp]> = [
  [
    'a 503, tried again each round',
    503,
    /; its last look: listing jobs: the service answered 503 Service Unavailable: busy$/,
  ],
  ['a 404', 404, /; looking for its job failed: listing jobs: .*404 Not Found.*$/],
];

describe.concurrent('vredact redact: the look for a lost upload’s job meets a failed listing', () => {
  it.each(listings)(
    'its outcome says so (%s), in --json and in the plain lines',
    { timeout: 120_000 },
    async (_name, status, said) => {
      const server = await startScriptedServer((req, res) => {
        if (req.url === REDACTION) return sendJson(res, 504, { error: 504, message: 'Gateway Time-out' });
        if (req.url?.startsWith('/api/jobs') && req.method === 'GET')
          return sendJson(res, status, { error: status, message: 'busy' });
        return sendJson(res, 404, { error: 404, message: 'not found' });
      });
      const temp = await tempDir('vredact-json-lost-look-');
      try {
        const env = isolatedEnv(join(temp.path, '.config'), {
          VREDACT_BASE_URL: server.baseUrl,
          VREDACT_TOKEN: 'a-token-of-the-test',
        });
        const vredact = (args: string[]) => runCli(args, { env, cwd: temp.path, timeout: RUN_GUARD_MS });
        const input = fixture('speech-16bit.wav');

        const json = await vredact(['redact', input, '-o', 'json', '--json']);
        expect(json.exitCode, String(json.stderr)).toBe(1);
        const [line] = jsonLines(json.stdout);
        expect(line).toMatchObject({ status: 'failed' });
        expect(String(line?.reason)).toContain(`redacting speech-16bit.wav: ${LOST}`);
        expect(String(line?.reason)).toMatch(said);

        const plain = await vredact(['redact', input, '-o', 'plain']);
        expect(plain.exitCode, String(plain.stderr)).toBe(1);
        const [status_, shown, reason] = String(plain.stdout).trimEnd().split('\t');
        expect([status_, shown]).toEqual(['failed', input]);
        expect(reason).toBe(line?.reason);

        // Sent once each, and never again in the run: the journal keeps `uploading` for the next run.
        expect(server.received.filter((request) => request.url === REDACTION)).toHaveLength(2);
        for (const out of ['json', 'plain']) {
          const journal = jsonLines(
            await readFile(join(temp.path, out, '.vredact', 'journal.jsonl'), 'utf8'),
          );
          expect(journal.map((record) => record.event)).toEqual(['uploading', 'uploading']);
        }
      } finally {
        await server.close();
        await temp.cleanup();
      }
    },
  );
});
