/**
 * `vredact download` keeps a file under its name only when it is a verified result (the rule of
 * `redact`'s results): an error page a link's host answers 200 with, a WAV cut short or declaring
 * more audio than comes, one with no audio, one far from its listed duration each fail with their
 * reason, nothing left under their names nor beside them, exit 1, and the same command run again
 * fetches them again, skipping only what was saved.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { errorLines } from '../helpers/e2e.js';
import { type FileServer, startFileHost } from '../helpers/file-host.js';
import { resultWavOf, wavCutShort } from '../helpers/result-wav.js';
import { expectFileBytes } from '../helpers/same-bytes.js';

const dir = tempDirPerTest('vredact-e2e-download-verify-');

const GOOD = resultWavOf(2);
const PAGE_HINT =
  "run the same command again for a fresh link; if it fails again, report it to the service's operators";
const REJECTED_HINT =
  "nothing of it was kept; run the same command again to fetch it again; if it fails again, report the file to the service's operators";

function send(res: ServerResponse, type: string, body: Buffer | string, length = true): void {
  const bytes = Buffer.from(body);
  res.writeHead(200, { 'content-type': type, ...(length ? { 'content-length': bytes.length } : {}) });
  res.end(bytes);
}

/** What each listed file's link answers; the listing gives each 2 s, `too-short.wav` 60 s. */
const SERVED: Record<string, FileServer> = {
  'good.wav': (_name, res) => send(res, 'audio/wav', GOOD),
  'xml.wav': (_name, res) =>
    send(res, 'application/xml', '<?xml version="1.0"?><Error><Code>NoSuchKey</Code></Error>'),
  'html.wav': (_name, res) => send(res, 'text/html; charset=utf-8', '<html><body>Not Found</body></html>'),
  'json.wav': (_name, res) => send(res, 'application/json', '{"error":"not_found"}'),
  // The connection closes before the announced length has come: a transfer cut, not an answer.
  'cut-with-length.wav': (_name, res) => {
    res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': GOOD.length });
    res.write(GOOD.subarray(0, 3044), () => res.destroy());
  },
  // No length announced: the body ends where the connection does, its data chunk short.
  'cut-without-length.wav': (_name, res) => send(res, 'audio/wav', wavCutShort(32_000, 3000), false),
  // Whole as the answer goes (its Content-Length is what came), but its header declares more.
  'declares-more.wav': (_name, res) => send(res, 'audio/wav', wavCutShort(32_000, 3000)),
  'no-audio.wav': (_name, res) => send(res, 'audio/wav', resultWavOf(0)),
  'too-short.wav': (_name, res) => send(res, 'audio/wav', resultWavOf(5)),
};
const DURATIONS = Object.fromEntries(
  Object.keys(SERVED).map((name) => [name, name === 'too-short.wav' ? 60 : 2]),
);

const REASONS: Record<string, string> = {
  'xml.wav': `the download link's host answered with application/xml, not a WAV (an error page, not the file); ${PAGE_HINT}`,
  'html.wav': `the download link's host answered with text/html, not a WAV (an error page, not the file); ${PAGE_HINT}`,
  'json.wav': `the download link's host answered with application/json, not a WAV (an error page, not the file); ${PAGE_HINT}`,
  'cut-without-length.wav': `the file (audio/wav) is a WAV file cut short: 3000 of the 32000 bytes of audio it declares; ${REJECTED_HINT}`,
  'declares-more.wav': `the file (audio/wav) is a WAV file cut short: 3000 of the 32000 bytes of audio it declares; ${REJECTED_HINT}`,
  'no-audio.wav': `the file is a WAV file with no audio; ${REJECTED_HINT}`,
  'too-short.wav': `the file lasts 5 s, the job's listing gives 1:00 (allowed: 57 s to 1:03, or 0 s to 2.06 s if it counts milliseconds); ${REJECTED_HINT}`,
};

async function startHost(served: Record<string, FileServer>, durations: Record<string, number>) {
  const listed = Object.fromEntries(Object.keys(served).map((name) => [name, Buffer.alloc(0)]));
  return startFileHost(listed, (name, res) => served[name]?.(name, res), false, durations);
}

const envFor = (baseUrl: string) =>
  isolatedEnv(join(dir.path, 'config'), {
    VREDACT_BASE_URL: baseUrl,
    VREDACT_TOKEN: 'vr_test_download_verify',
  });

describe('download verifies each file as `redact` verifies a result', () => {
  it('fails every file that is not a whole WAV of its listed duration, keeps nothing of them, saves the good one', async () => {
    const server = await startHost(SERVED, DURATIONS);
    try {
      const out = join(dir.path, 'out');
      const run = await runCli(['download', 'job1', '--max-retries', '0', '-o', out], {
        env: envFor(server.baseUrl),
      });
      expect(run.exitCode, String(run.stderr)).toBe(1);
      expect(String(run.stdout)).toBe(join(out, 'good.wav'));
      expect(await readdir(out)).toEqual(['good.wav']);
      await expectFileBytes(join(out, 'good.wav'), GOOD);

      const errors = errorLines(run.stderr);
      for (const [name, reason] of Object.entries(REASONS))
        expect(errors).toContain(`error: ${name}: ${reason}`);
      // The cut transfer fails as the network failure it is, naming the link's host.
      expect(errors.find((line) => line.startsWith('error: cut-with-length.wav: '))).toMatch(
        /the download link's host 127\.0\.0\.1:\d+/,
      );
      expect(errors).toHaveLength(Object.keys(SERVED).length - 1);
      expect(String(run.stderr)).toContain('1 downloaded, 0 skipped, 8 failed');
    } finally {
      await server.close();
    }
  });

  it('--json gives each outcome; the same command run again fetches only the failed ones again', async () => {
    const server = await startHost(SERVED, DURATIONS);
    try {
      const out = join(dir.path, 'out');
      const outcomesOf = async () => {
        const run = await runCli(['download', 'job1', '--max-retries', '0', '-o', out, '--json'], {
          env: envFor(server.baseUrl),
        });
        expect(run.exitCode, String(run.stderr)).toBe(1);
        const outcomes = JSON.parse(String(run.stdout)) as Array<Record<string, unknown>>;
        return new Map(outcomes.map((o) => [o.fileName as string, o]));
      };
      const first = await outcomesOf();
      expect(first.get('good.wav')).toEqual({
        fileName: 'good.wav',
        path: join(out, 'good.wav'),
        status: 'downloaded',
        bytes: GOOD.length,
      });
      for (const [name, reason] of Object.entries(REASONS))
        expect(first.get(name)).toEqual({ fileName: name, path: join(out, name), status: 'failed', reason });

      const second = await outcomesOf();
      expect(second.get('good.wav')).toMatchObject({ status: 'skipped' });
      for (const name of Object.keys(SERVED)) {
        if (name === 'good.wav') continue;
        expect(second.get(name)).toMatchObject({ status: 'failed' });
        expect(server.fileGets(name)).toBe(2);
      }
      expect(server.fileGets('good.wav')).toBe(1);
      expect(await readdir(out)).toEqual(['good.wav']);
    } finally {
      await server.close();
    }
  });

  it('a name not ending in .wav: a RIFF/WAVE body is verified, an error page fails, any other body is kept', async () => {
    const notes = 'speaker turns: 12\n';
    const served: Record<string, FileServer> = {
      'call.mp3': (_name, res) => send(res, 'audio/wav', wavCutShort(32_000, 3000)),
      'call-2.mp3': (_name, res) => send(res, 'application/octet-stream', GOOD),
      'report.json': (_name, res) => send(res, 'application/json', '{"speakers":2}'),
      'notes.txt': (_name, res) => send(res, 'text/plain', notes),
    };
    const server = await startHost(served, {});
    try {
      const out = join(dir.path, 'out');
      const run = await runCli(['download', 'job1', '--max-retries', '0', '-o', out], {
        env: envFor(server.baseUrl),
      });
      expect(run.exitCode, String(run.stderr)).toBe(1);
      expect(await readdir(out)).toEqual(['call-2.mp3', 'notes.txt']);
      await expectFileBytes(join(out, 'call-2.mp3'), GOOD);
      expect(await readFile(join(out, 'notes.txt'), 'utf8')).toBe(notes);
      expect(errorLines(run.stderr)).toEqual([
        `error: call.mp3: ${REASONS['declares-more.wav']}`,
        `error: report.json: ${REASONS['json.wav']}`,
      ]);
    } finally {
      await server.close();
    }
  });

  it('a WAV-named file already there that is not a whole WAV is neither skipped nor replaced: it fails, saying how; --overwrite fetches it', async () => {
    const server = await startHost(
      {
        'saved.wav': (_name, res) => send(res, 'audio/wav', GOOD),
        'page.wav': (_name, res) => send(res, 'audio/wav', GOOD),
        'cut.wav': (_name, res) => send(res, 'audio/wav', GOOD),
      },
      {},
    );
    try {
      const out = join(dir.path, 'out');
      const earlier = resultWavOf(1, 3);
      const page = '<?xml version="1.0"?><Error><Code>NoSuchKey</Code></Error>';
      await mkdir(out);
      await writeFile(join(out, 'saved.wav'), earlier);
      await writeFile(join(out, 'page.wav'), page);
      await writeFile(join(out, 'cut.wav'), earlier.subarray(0, 1000));
      const run = await runCli(['download', 'job1', '-o', out], { env: envFor(server.baseUrl) });
      expect(run.exitCode, String(run.stderr)).toBe(1);
      expect(String(run.stdout)).toBe('');
      const reason =
        'already in the output folder, but not a whole WAV (an older vredact saved error pages so), so it was neither skipped nor replaced; to fetch it again over it: `vredact download <jobId> <fileName> --overwrite`';
      expect(errorLines(run.stderr)).toEqual([`error: cut.wav: ${reason}`, `error: page.wav: ${reason}`]);
      expect(String(run.stderr)).toContain('0 downloaded, 1 skipped, 2 failed');
      await expectFileBytes(join(out, 'saved.wav'), earlier);
      expect(await readFile(join(out, 'page.wav'), 'utf8')).toBe(page);
      await expectFileBytes(join(out, 'cut.wav'), earlier.subarray(0, 1000));
      expect(server.fileGets('saved.wav') + server.fileGets('page.wav') + server.fileGets('cut.wav')).toBe(0);

      const again = await runCli(['download', 'job1', 'page.wav', 'cut.wav', '-o', out, '--overwrite'], {
        env: envFor(server.baseUrl),
      });
      expect(again.exitCode, String(again.stderr)).toBe(0);
      await expectFileBytes(join(out, 'page.wav'), GOOD);
      await expectFileBytes(join(out, 'cut.wav'), GOOD);
      await expectFileBytes(join(out, 'saved.wav'), earlier);
      expect(await readdir(out)).toEqual(['cut.wav', 'page.wav', 'saved.wav']);
    } finally {
      await server.close();
    }
  });
});
