/**
 * The record a compliance team keeps after a redo that failed and after an input rewritten into a file
 * that is no audio: the output on disk, verified when it was done, stays listed with its earlier record.
 */
import { createHash } from 'node:crypto';
import { readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';
import { writeJunk, writeWav } from '../helpers/sandbox-api.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

interface ManifestRow {
  input_path: string;
  input_sha256: string;
  output_path: string;
  output_sha256: string;
  done_at: string;
}

interface JsonFile {
  input: string;
  state: string;
  earlierOutput?: { output: string; inputSha256?: string; doneAt: string };
}

describe('status and the manifest after a later attempt that did not replace the output', () => {
  let sandbox: SandboxProcess;
  const dir = tempDirPerTest('vredact-earlier-output-');
  const env = () =>
    isolatedEnv(join(dir.path, 'config'), {
      VREDACT_BASE_URL: sandbox.baseUrl,
      VREDACT_TOKEN: sandbox.token,
    });

  beforeAll(async () => {
    sandbox = await startSandboxProcess();
  });
  afterAll(async () => {
    await sandbox.stop();
  });

  async function manifest(out: string): Promise<ManifestRow[]> {
    const result = await runCli(['status', '-o', out, '--manifest', '--json'], { env: env() });
    expect(result.exitCode).toBe(0);
    return String(result.stdout)
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as ManifestRow);
  }

  async function files(out: string): Promise<JsonFile[]> {
    const result = await runCli(['status', '-o', out, '--json', '--all'], { env: env() });
    expect(result.exitCode).toBe(0);
    return (JSON.parse(String(result.stdout)) as { files: JsonFile[] }).files;
  }

  async function redact(args: string[]) {
    return runCli(['redact', ...args, '--max-retries', '0'], { env: env() });
  }

  test('a failed --overwrite redo keeps the earlier output listed; a successful one replaces the row', async () => {
    const input = await writeWav(join(dir.path, 'a.wav'), 2);
    const out = join(dir.path, 'out');
    expect((await redact([input, '-o', out])).exitCode).toBe(0);
    const output = join(out, 'a.wav');
    const first = await readFile(output);
    const [row] = await manifest(out);
    expect(row).toMatchObject({
      input_path: await realpath(input),
      input_sha256: sha256(await readFile(input)),
      output_sha256: sha256(first),
    });

    // The service refuses the redo's upload: the file fails, its earlier output is left as it was.
    await sandbox.queueFaults([{ status: 422, message: 'refused for this test' }]);
    const failed = await redact([input, '-o', out, '--overwrite']);
    expect(failed.exitCode).not.toBe(0);
    expect(await readFile(output)).toEqual(first);

    expect(await manifest(out)).toEqual([row]);
    const [file] = await files(out);
    expect(file).toMatchObject({
      state: 'failed',
      earlierOutput: {
        output,
        inputSha256: row?.input_sha256,
        doneAt: row?.done_at,
      },
    });
    const text = await runCli(['status', '-o', out], { env: env() });
    expect(String(text.stdout)).toMatch(/earlier output a\.wav stands/);

    // A redo that succeeds is the record again, and the note goes.
    expect((await redact([input, '-o', out, '--overwrite'])).exitCode).toBe(0);
    const [redone] = await manifest(out);
    expect(redone?.done_at).not.toBe(row?.done_at);
    expect(redone?.output_sha256).toBe(sha256(await readFile(output)));
    const [after] = await files(out);
    expect(after?.state).toBe('done');
    expect(after?.earlierOutput).toBeUndefined();
  });

  test('an input rewritten into a file that is no audio: rejected, its earlier output still on record', async () => {
    const input = await writeWav(join(dir.path, 'b.wav'), 2);
    const out = join(dir.path, 'out');
    expect((await redact([input, '-o', out])).exitCode).toBe(0);
    const output = join(out, 'b.wav');
    const first = await readFile(output);
    const [row] = await manifest(out);
    const earlierSha = sha256(await readFile(input));
    expect(row?.input_sha256).toBe(earlierSha);

    await writeJunk(input, 4000);
    const rejected = await redact([input, '-o', out]);
    expect(rejected.exitCode).not.toBe(0);
    expect(await readFile(output)).toEqual(first);
    expect(await manifest(out)).toEqual([row]);
    const [file] = await files(out);
    expect(file).toMatchObject({
      state: 'rejected',
      earlierOutput: { output, inputSha256: earlierSha, doneAt: row?.done_at },
    });

    // Good audio again: redacted again (the output is the rejected file's, vouched for by no later line).
    await writeWav(input, 3);
    expect((await redact([input, '-o', out, '--overwrite'])).exitCode).toBe(0);
    const [redone] = await manifest(out);
    expect(redone?.input_sha256).toBe(sha256(await readFile(input)));
    expect(redone?.input_sha256).not.toBe(earlierSha);
    expect((await files(out))[0]?.earlierOutput).toBeUndefined();
  });
});
