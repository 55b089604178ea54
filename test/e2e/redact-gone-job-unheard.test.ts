/**
 * Jobs of an earlier run answered 404 by a base URL that is not the service (a wrong URL that answers
 * 404 to everything; a site that answers every GET with its page and job paths 404): not taken for
 * gone, as the service was never heard. Run 1 `--no-wait` submits two files to the service; run 2,
 * pointed at the bad host, looks at the job listing once, stops the batch and sends nothing, and the
 * journal still names the jobs; run 3, back at the service, collects them with no second upload.
 */
import type { ServerResponse } from 'node:http';
import { writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { jsonLines } from '../helpers/e2e.js';
import { REDACT, startForgetfulService } from '../helpers/forgetful-service.js';
import { readJournal } from '../helpers/journal.js';
import { changedWav, layoutWav } from '../helpers/result-wav.js';
import { expectFileBytes } from '../helpers/same-bytes.js';
import { type ScriptedServer, sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const dir = tempDirPerTest('vredact-e2e-gone-unheard-');
const recordings = {
  'a.wav': layoutWav({ sampleRate: 16_000, channels: 1, bits: 16 }, 2, 7),
  'b.wav': layoutWav({ sampleRate: 16_000, channels: 1, bits: 16 }, 2, 9),
};

const notFound = (res: ServerResponse) => sendJson(res, 404, { error: 'not_found' });
const page = (res: ServerResponse) => {
  const html = '<!doctype html><html><body>Welcome</body></html>';
  res.writeHead(200, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(html) });
  res.end(html);
};

const badHosts: Array<[string, (url: string, method: string, res: ServerResponse) => void, string]> = [
  ['a host answering 404 to everything', (_url, _method, res) => notFound(res), '404 Not Found'],
  [
    'a site answering every GET with its page, and job paths 404',
    (url, method, res) => (method === 'GET' && !url.startsWith('/api/jobs/') ? page(res) : notFound(res)),
    'an answer that is no list of jobs',
  ],
];

async function run(server: ScriptedServer, extra: string[] = []) {
  const env = isolatedEnv(join(dir.path, '.config'), {
    VREDACT_BASE_URL: server.baseUrl,
    VREDACT_TOKEN: 'vr_test_gone_unheard_0123456789',
  });
  const result = await runCli(['redact', 'in', '-o', 'out', '--json', '--no-progress', ...extra], {
    env,
    cwd: dir.path,
  });
  const files = jsonLines(result.stdout).filter((line) => 'input' in line);
  return { result, files, stderr: String(result.stderr) };
}

const journalEvents = async () =>
  (await readJournal(join(dir.path, 'out'))).map((line) => [line.event, line.jobId ?? line.uploadName]);

describe('jobs of an earlier run answered 404 before the service was heard', () => {
  it.each(badHosts)('are not taken for gone at %s', async (_name, answer, listingWords) => {
    await mkdir(join(dir.path, 'in'));
    for (const [name, bytes] of Object.entries(recordings))
      await writeFile(join(dir.path, 'in', name), bytes);
    const service = await startForgetfulService();
    const bad = await startScriptedServer((req, res) => answer(req.url ?? '', req.method ?? '', res));
    try {
      const first = await run(service.server, ['--no-wait']);
      expect(first.result.exitCode).toBe(0);
      expect(first.files.map((line) => line.status).sort()).toEqual(['pending', 'pending']);
      const submitted = await journalEvents();
      expect(submitted.filter(([event]) => event === 'submitted')).toHaveLength(2);

      const second = await run(bad);
      expect(bad.received.filter((request) => request.method === 'POST')).toEqual([]);
      expect(bad.received.filter((request) => request.url === '/api/jobs')).toHaveLength(1);
      expect(second.result.exitCode).toBe(1);
      expect(second.stderr).toMatch(
        new RegExp(
          `^error: the batch stopped: jobs of earlier runs were answered 404 Not Found by something that is not the Voice Redaction Service \\(its job listing: ${listingWords}, from 127\\.0\\.0\\.1:\\d+\\): nothing was sent again, and the next run looks at those jobs again$`,
          'm',
        ),
      );
      // What to do: nothing was sent, and the jobs wait at the service for a run pointed at it.
      expect(second.stderr).toMatch(
        /^hint: check that the base URL points at the Voice Redaction Service \(the URL set in VREDACT_BASE_URL\); once it does, run the same command again: it looks at those jobs at the service$/m,
      );
      expect(second.stderr).not.toContain('sending the file again');
      expect(second.files.map((line) => [line.status, line.jobId]).sort()).toEqual([
        ['pending', 'e1-j1'],
        ['pending', 'e1-j2'],
      ]);
      // Not one line more: each file's `submitted` line still names its job at the service.
      expect(await journalEvents()).toEqual(submitted);

      const third = await run(service.server);
      expect(third.result.exitCode).toBe(0);
      expect(third.files.map((line) => line.status).sort()).toEqual(['done', 'done']);
      expect(service.uploads()).toBe(2);
      for (const [name, bytes] of Object.entries(recordings))
        await expectFileBytes(join(dir.path, 'out', name), changedWav(bytes));
      expect(service.server.received.filter((request) => request.url === REDACT)).toHaveLength(2);
    } finally {
      await bad.close();
      await service.server.close();
    }
  });

  it('leave the file pending with its job when the listing says nothing (a 503)', async () => {
    await mkdir(join(dir.path, 'in'));
    await writeFile(join(dir.path, 'in', 'a.wav'), recordings['a.wav']);
    const service = await startForgetfulService();
    const busy = await startScriptedServer((req, res) =>
      req.url === '/api/jobs' ? sendJson(res, 503, { error: 'busy' }) : notFound(res),
    );
    try {
      expect((await run(service.server, ['--no-wait'])).result.exitCode).toBe(0);
      const submitted = await journalEvents();

      const second = await run(busy);
      expect(busy.received.filter((request) => request.method === 'POST')).toEqual([]);
      expect(second.stderr).not.toContain('the batch stopped');
      expect(second.files).toMatchObject([{ status: 'pending', jobId: 'e1-j1' }]);
      expect(String(second.files[0]?.reason)).toMatch(
        /could not be told \(its job listing failed: .*503.*\); nothing was sent: a later run looks at job e1-j1 again$/,
      );
      expect(await journalEvents()).toEqual(submitted);
      expect(second.result.exitCode).toBe(1);
    } finally {
      await busy.close();
      await service.server.close();
    }
  });
});
