/**
 * A hostile service that echoes the token split by what shows as nothing (a zero-width space, a
 * colour change every few characters): no run of it is long enough to be masked as a part, yet the
 * text reads as the token once shown raw, and `download`, which drops such characters from a name,
 * would write it to the disk as a file name.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { FIXTURES, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'vr_split_0123456789abcdefghij';
const dir = tempDirPerTest('vredact-split-token-');

/** The token with `joint` after every 4 characters. */
const splitBy = (token: string, joint: string) => token.replace(/(.{4})/g, `$1${joint}`);

test('a listed file name holding the token split by zero-width spaces: no file on disk, line or --json is named after it', async () => {
  const wav = await readFile(join(FIXTURES, 'speech-16bit.wav'));
  const server = await startScriptedServer((req, res) => {
    const sent = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    const url = req.url ?? '';
    if (url.endsWith('/content'))
      return sendJson(res, 200, {
        jobContent: [
          {
            id: 1,
            job_id: 'job1',
            file_name: `${splitBy(sent, '\u200b')}.wav`,
            audio_duration: 7,
            created_at: '2026-01-01T00:00:00Z',
          },
        ],
      });
    if (url.endsWith('/download-url')) return sendJson(res, 200, { signedUrl: '/files/x.wav' });
    if (url === '/files/x.wav') {
      res.writeHead(200, { 'content-type': 'audio/wav' });
      return void res.end(wav);
    }
    sendJson(res, 500, { error: 500, message: `bad token ${splitBy(sent, '\x1b[0m')}` });
  });
  try {
    const env = isolatedEnv(join(dir.path, 'cfg'), {
      VREDACT_BASE_URL: server.baseUrl,
      VREDACT_TOKEN: TOKEN,
    });
    const out = join(dir.path, 'out');
    const download = await runCli(['download', 'job1', '-o', out], { env });
    expect(download.exitCode, String(download.stderr)).toBe(0);
    const saved = await readdir(out);
    expect(saved).toHaveLength(1);
    const listed = await runCli(['jobs', 'content', 'job1', '--json'], { env });
    expect(listed.exitCode).toBe(0);
    const failed = await runCli(['jobs', 'create'], { env });
    expect(failed.exitCode).toBe(1);

    // What each shows, with what showed as nothing taken out, as a reader sees it.
    const shown = [
      ...saved,
      String(download.stdout),
      String(download.stderr),
      JSON.stringify(JSON.parse(String(listed.stdout))),
      String(failed.stderr),
    ].map((text) => text.replace(/\u200b|\\u200b|\x1b\[0m|\\x1b\[0m/g, ''));
    for (const text of shown) expect(text).not.toContain(TOKEN.slice(0, 10));
    expect(saved[0]).toBe('vr_…ghij.wav');
    expect(String(failed.stderr)).toContain('bad token vr_…ghij');
  } finally {
    await server.close();
  }
});
