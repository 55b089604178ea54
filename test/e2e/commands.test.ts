import { openAsBlob } from 'node:fs';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FormData, request } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FIXTURES, isolatedEnv, runCli, tempDir } from '../helpers/cli.js';
import { startSandboxProcess } from '../helpers/sandbox.js';
import { resultWav } from '../helpers/result-wav.js';

type Sandbox = Awaited<ReturnType<typeof startSandboxProcess>>;

const OTHER_TOKEN = 'vr_other_token_000000000000ffff';

let sandbox: Sandbox;
let work: Awaited<ReturnType<typeof tempDir>>;

/** The environment of a CLI run against the sandbox with a given token. */
function envFor(token: string | undefined, extra: Record<string, string> = {}) {
  return isolatedEnv(join(work.path, 'config'), {
    VREDACT_BASE_URL: sandbox.baseUrl,
    ...(token ? { VREDACT_TOKEN: token } : {}),
    ...extra,
  });
}

/** The tab-separated lines a command prints when stdout is not a terminal. */
function tsvRows(stdout: unknown): string[][] {
  return String(stdout)
    .trim()
    .split('\n')
    .map((line) => line.split('\t'));
}

/** Uploads a file straight to the sandbox (as another client would) under any multipart file name. */
async function uploadAs(path: string, fileName: string, token: string): Promise<string> {
  const form = new FormData();
  form.append('source_audio', await openAsBlob(path, { type: 'audio/wav' }), fileName);
  const response = await request(`${sandbox.baseUrl}/api/speech-to-speech-biometric-redaction`, {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await response.body.json()) as { job_id: string };
  expect(response.statusCode).toBe(202);
  return body.job_id;
}

/** Waits (bounded) until the sandbox lists a result item for the job. */
async function waitForResult(jobId: string, token: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const result = await runCli(['jobs', 'content', jobId, '--json'], { env: envFor(token) });
    const items = JSON.parse(String(result.stdout)) as { file_name: string }[];
    if (items.some((item) => item.file_name.endsWith('.redacted.wav'))) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`job ${jobId} never finished`);
}

beforeAll(async () => {
  work = await tempDir();
  // Every fixture is longer than 2 s, so uploads become asynchronous jobs, finished 100× faster than real time.
  sandbox = await startSandboxProcess(['--token', OTHER_TOKEN, '--sync-limit', '2', '--speed', '100']);
});

afterAll(async () => {
  await sandbox?.stop();
  await work?.cleanup();
});

describe('authentication', () => {
  test('an unknown token exits 3 with a hint to log in, and nothing of the token is printed', async () => {
    const bad = 'vr_not_a_known_token_1234abcd';
    const result = await runCli(['jobs', 'list', '--verbose'], { env: envFor(bad) });
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toMatch(/403/);
    expect(result.stderr).toMatch(/vredact login/);
    expect(`${result.stdout}${result.stderr}`).not.toContain(bad);
  });

  test('a 401 from the service (header missing on its side) exits 3 with a clear message', async () => {
    await sandbox.queueFaults([{ status: 401 }]);
    const result = await runCli(['jobs', 'list'], { env: envFor(sandbox.token) });
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toMatch(/401 Unauthorized/);
  });

  test('no token at all is a configuration error: exit 2, nothing sent', async () => {
    const before = (await sandbox.requests()).length;
    const result = await runCli(['jobs', 'list'], { env: envFor(undefined) });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/vredact login/);
    expect((await sandbox.requests()).length).toBe(before);
  });

  test('login stores a token the service accepts (mode 0600) and refuses one it does not', async () => {
    const configDir = join(work.path, 'login-config');
    const env = isolatedEnv(configDir, { VREDACT_BASE_URL: sandbox.baseUrl });
    const refused = await runCli(['login', '--token-stdin'], { env, input: 'vr_wrong_token_99999999\n' });
    expect(refused.exitCode).toBe(3);
    // Said as login's own failure: not "listing jobs", and not "run `vredact login`".
    expect(String(refused.stderr)).toMatch(
      /^error: the service refused this token \(40[13][^)]*\); nothing was stored/,
    );
    expect(String(refused.stderr)).toMatch(/hint: check that the whole token was pasted/);
    expect(String(refused.stderr)).not.toMatch(/listing jobs|vredact login|vr_wrong_token_99999999/);
    const path = String((await runCli(['config', 'path'], { env })).stdout).trim();
    await expect(readFile(path, 'utf8').then((t) => t.includes('vr_wrong'))).rejects.toThrow();

    // The right token pasted with its quotes: refused before it is sent (the service said 403, and
    // the hint to paste the whole token did not say what was wrong).
    const quoted = await runCli(['login', '--token-stdin'], { env, input: `"${sandbox.token}"\n` });
    expect(quoted.exitCode).toBe(2);
    expect(String(quoted.stderr).trim().split('\n')).toEqual([
      'error: the usage token cannot be used: it begins or ends with a quote mark, which no token does (was it copied with its quotes?)',
      'hint: copy the token again, whole and alone, as the service gave it: `vredact login`, or `vredact config set token -`',
    ]);
    await expect(readFile(path, 'utf8').then((t) => t.includes('vr_'))).rejects.toThrow();

    const ok = await runCli(['login', '--token-stdin'], { env, input: `${sandbox.token}\n` });
    expect(ok.exitCode).toBe(0);
    expect(`${ok.stdout}${ok.stderr}`).not.toContain(sandbox.token);
    expect(JSON.parse(await readFile(path, 'utf8')).token).toBe(sandbox.token);
    expect((await stat(path)).mode & 0o777).toBe(0o600);

    const listed = await runCli(['jobs', 'list'], { env });
    expect(listed.exitCode).toBe(0);

    expect((await runCli(['logout'], { env })).exitCode).toBe(0);
    expect(JSON.parse(await readFile(path, 'utf8')).token).toBeUndefined();
    expect((await runCli(['jobs', 'list'], { env })).exitCode).toBe(2);
  });
});

describe('jobs', () => {
  test('create, then list shows it newest first with the token masked (plain and JSON)', async () => {
    const first = await runCli(['jobs', 'create'], { env: envFor(sandbox.token) });
    const second = await runCli(['jobs', 'create', '--json'], { env: envFor(sandbox.token) });
    expect(first.exitCode).toBe(0);
    const firstId = String(first.stdout).trim();
    const secondId = (JSON.parse(String(second.stdout)) as { job_id: string }).job_id;
    expect(firstId).not.toBe('');

    const plain = await runCli(['jobs', 'list'], { env: envFor(sandbox.token) });
    expect(plain.exitCode).toBe(0);
    const rows = tsvRows(plain.stdout);
    const ids = rows.map((row) => row[0]);
    expect(ids).toContain(firstId);
    expect(ids.indexOf(secondId)).toBeLessThan(ids.indexOf(firstId));
    expect(plain.stdout).not.toContain(sandbox.token);
    expect(rows[0]?.[2]).toMatch(/…/);

    const json = await runCli(['jobs', 'list', '--json'], { env: envFor(sandbox.token) });
    const jobs = JSON.parse(String(json.stdout)) as { job_id: string; token: string }[];
    expect(jobs.map((job) => job.job_id)).toEqual(ids);
    expect(jobs.every((job) => job.token === `${sandbox.token.slice(0, 3)}…${sandbox.token.slice(-4)}`)).toBe(
      true,
    );
  });

  test("another token's job is not found, and none of its data shows", async () => {
    const mine = String((await runCli(['jobs', 'create'], { env: envFor(sandbox.token) })).stdout).trim();
    const result = await runCli(['jobs', 'content', mine], { env: envFor(OTHER_TOKEN) });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/404 Not Found/);
    expect(result.stdout).toBe('');
    const list = await runCli(['jobs', 'list', '--json'], { env: envFor(OTHER_TOKEN) });
    expect(JSON.parse(String(list.stdout)).map((j: { job_id: string }) => j.job_id)).not.toContain(mine);
  });

  test('content lists the upload and its result with m:ss durations', async () => {
    const jobId = await uploadAs(join(FIXTURES, 'speech-16bit.wav'), 'call one.wav', sandbox.token);
    await waitForResult(jobId, sandbox.token);
    const result = await runCli(['jobs', 'content', jobId], { env: envFor(sandbox.token) });
    expect(result.exitCode).toBe(0);
    const rows = tsvRows(result.stdout);
    const names = rows.map((row) => row[1]);
    expect(names).toContain('call one.wav');
    expect(names).toContain('call one.redacted.wav');
    expect(rows.every((row) => row[2] === '0:07')).toBe(true);
  });
});

describe('retries and error bodies', () => {
  test('a 503 then success is retried and succeeds', async () => {
    const before = (await sandbox.requests()).filter((r) => r.path === '/api/jobs').length;
    await sandbox.queueFaults([{ status: 503 }]);
    const result = await runCli(['jobs', 'list'], { env: envFor(sandbox.token) });
    expect(result.exitCode).toBe(0);
    const after = (await sandbox.requests()).filter((r) => r.path === '/api/jobs').length;
    expect(after - before).toBe(2);
  });

  test('an HTML 502 body gives a clean one-line message with the status', async () => {
    await sandbox.queueFaults([{ status: 502, html: true }]);
    const result = await runCli(['jobs', 'list', '--max-retries', '0'], { env: envFor(sandbox.token) });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/^error: listing jobs: the service answered 502 Bad Gateway$/m);
    expect(result.stderr).not.toContain('<');
  });
});

describe('--timeout', () => {
  test('1e1 and 0x10 are usage errors before any request (exit 2); 0.5 is taken', async () => {
    const before = (await sandbox.requests()).length;
    for (const value of ['1e1', '0x10']) {
      const result = await runCli(['jobs', 'list', '--timeout', value], { env: envFor(sandbox.token) });
      expect(result.exitCode).toBe(2);
      expect(String(result.stderr).split('\n')[0]).toBe(
        `error: --timeout must be a positive number of seconds, in digits (like 30 or 0.5) (got "${value}")`,
      );
      expect(result.stdout).toBe('');
    }
    expect((await sandbox.requests()).length).toBe(before);
    const taken = await runCli(['jobs', 'list', '--timeout', '0.5', '--json'], {
      env: envFor(sandbox.token),
    });
    expect(taken.exitCode).toBe(0);
    expect(Array.isArray(JSON.parse(String(taken.stdout)))).toBe(true);
  });
});

describe('download', () => {
  let jobId: string;
  let out: string;

  beforeAll(async () => {
    jobId = await uploadAs(join(FIXTURES, 'speech-16bit.wav'), '../../escape.wav', sandbox.token);
    await waitForResult(jobId, sandbox.token);
    out = join(work.path, 'downloads', 'inner');
  });

  test('fetches every file of a job inside the output folder, without sending the token to the file host', async () => {
    const before = (await sandbox.requests()).length;
    const result = await runCli(['download', jobId, '-o', out], { env: envFor(sandbox.token) });
    expect(result.exitCode).toBe(0);
    expect((await readdir(out)).sort()).toEqual(['escape.redacted.wav', 'escape.wav']);
    // Nothing landed above the output folder.
    expect(await readdir(join(work.path, 'downloads'))).toEqual(['inner']);
    expect((await readdir(work.path)).filter((name) => name.includes('escape'))).toEqual([]);
    const wav = await readFile(join(out, 'escape.redacted.wav'));
    expect(wav.toString('latin1', 0, 4)).toBe('RIFF');
    expect(wav.toString('latin1', 8, 12)).toBe('WAVE');
    const source = await readFile(join(out, 'escape.wav'));
    expect(source.equals(await readFile(join(FIXTURES, 'speech-16bit.wav')))).toBe(true);

    const fileRequests = (await sandbox.requests()).slice(before).filter((r) => r.listener === 'files');
    expect(fileRequests.length).toBe(2);
    expect(fileRequests.every((r) => r.hadAuthorization === false && r.status === 200)).toBe(true);
  });

  test('a signed URL refused by the file host is an expired link (exit 1), not a refused token (exit 3)', async () => {
    const elsewhere = join(work.path, 'refused-link');
    await sandbox.queueFaults([{ status: 403, listener: 'files' }]);
    const result = await runCli(
      ['download', jobId, '../../escape.wav', '-o', elsewhere, '--max-retries', '0'],
      {
        env: envFor(sandbox.token),
      },
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/refused the link \(403\)/);
    expect(result.stderr).not.toMatch(/vredact login/);
    // Nothing at all was written, not even the folder or a partial file.
    expect(await readdir(elsewhere).catch(() => [])).toEqual([]);
  });

  test('existing files are skipped unless --overwrite; a missing file fails with exit 1', async () => {
    // A whole WAV of the user's: skipped, left as it is.
    const kept = resultWav(10, 1);
    await writeFile(join(out, 'escape.wav'), kept);
    // The name as the service knows it; it still lands as a base name inside the folder.
    const skipped = await runCli(['download', jobId, '../../escape.wav', '-o', out], {
      env: envFor(sandbox.token),
    });
    expect(skipped.exitCode).toBe(0);
    expect((await readFile(join(out, 'escape.wav'))).equals(kept)).toBe(true);

    const replaced = await runCli(['download', jobId, '../../escape.wav', '-o', out, '--overwrite'], {
      env: envFor(sandbox.token),
    });
    expect(replaced.exitCode).toBe(0);
    expect((await readFile(join(out, 'escape.wav'))).toString('latin1', 0, 4)).toBe('RIFF');

    const missing = await runCli(['download', jobId, 'nope.wav', '-o', out, '--json'], {
      env: envFor(sandbox.token),
    });
    expect(missing.exitCode).toBe(1);
    const outcomes = JSON.parse(String(missing.stdout)) as { status: string; reason: string }[];
    expect(outcomes).toEqual([
      expect.objectContaining({ status: 'failed', reason: expect.stringMatching(/404/) }),
    ]);
    expect((await readdir(out)).filter((name) => name.includes('nope'))).toEqual([]);
  });
});
