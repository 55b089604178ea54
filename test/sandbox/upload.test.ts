/** Receiving a redaction form: text fields kept, `source_audio` streamed to a file and hashed, bad forms refused. */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { discardBody, sendError, sendJson } from '../../src/sandbox/http.js';
import { MAX_UPLOAD_BYTES } from '../../src/sandbox/limits.js';
import { receiveUpload, type UploadOutcome } from '../../src/sandbox/upload.js';
import { tempDirPerTest } from '../helpers/cli.js';
import { loopbackServers, WAIT } from '../helpers/test-servers.js';
import { expectFileBytes } from '../helpers/same-bytes.js';

const scratch = tempDirPerTest('vredact-sandbox-upload-');
const listen = loopbackServers();

interface Received {
  outcomes: UploadOutcome[];
  fileStarts: number;
  bytes: number;
}

/** A server that receives each request with receiveUpload and answers as the sandbox would. */
async function uploadServer(): Promise<{ base: string; seen: Received; tmpDir: string }> {
  const tmpDir = scratch.path;
  const seen: Received = { outcomes: [], fileStarts: 0, bytes: 0 };
  let n = 0;
  const server = createServer((req, res) => {
    void receiveUpload(req, {
      tmpPath: () => join(tmpDir, `part-${n++}`),
      onFileStart: () => seen.fileStarts++,
      onBytes: (count) => (seen.bytes += count),
    }).then((outcome) => {
      seen.outcomes.push(outcome);
      if (outcome.kind === 'refused') {
        discardBody(req);
        sendError(res, outcome.status, outcome.message);
      } else if (outcome.kind === 'received') {
        sendJson(res, 200, { fields: Object.fromEntries(outcome.fields), file: outcome.file ?? null });
      }
    });
  });
  return { base: await listen(server), seen, tmpDir };
}

/**
 * A form upload that promises a megabyte and has sent only the file part's head so far: the test
 * writes what it wants, then goes away (`destroy`).
 */
function unfinishedUpload(base: string) {
  const url = new URL(base);
  const client = request({
    host: url.hostname,
    port: url.port,
    method: 'POST',
    path: '/api/redact',
    headers: { 'content-type': 'multipart/form-data; boundary=XYZ', 'content-length': '1000000' },
  });
  client.on('error', () => {});
  client.write('--XYZ\r\nContent-Disposition: form-data; name="source_audio"; filename="a.wav"\r\n\r\n');
  return client;
}

async function post(base: string, body: FormData | string, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}/api/redact`, { method: 'POST', body, headers });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

const audio = (size: number) => Buffer.from(Array.from({ length: size }, (_, i) => (i * 31 + 7) & 0xff));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('receiveUpload', () => {
  it('keeps the fields and streams the file to a temporary file, with its size and hash', async () => {
    const { base, seen } = await uploadServer();
    const bytes = audio(300_001);
    const form = new FormData();
    form.set('age', 'senior-adult');
    form.set('gender', 'opposite');
    form.set('source_audio', new Blob([bytes]), 'calls/2026/réunion.wav');
    const answer = await post(base, form);
    expect(answer.status).toBe(200);
    expect(answer.json.fields).toEqual({ age: 'senior-adult', gender: 'opposite' });
    // The client's name is kept whole, folders and accents included.
    expect(answer.json.file).toMatchObject({
      name: 'calls/2026/réunion.wav',
      size: 300_001,
      sha256: sha256(bytes),
    });
    const { path } = answer.json.file as { path: string };
    await expectFileBytes(path, bytes);
    expect(seen.fileStarts).toBe(1);
    expect(seen.bytes).toBe(300_001);
  });

  it('receives a form without a file, and an empty file', async () => {
    const { base } = await uploadServer();
    const noFile = new FormData();
    noFile.set('language', 'fr');
    expect(await post(base, noFile)).toEqual({
      status: 200,
      json: { fields: { language: 'fr' }, file: null },
    });
    const empty = new FormData();
    empty.set('source_audio', new Blob([]), 'empty.wav');
    const answer = await post(base, empty);
    expect(answer.json.file).toMatchObject({ name: 'empty.wav', size: 0, sha256: sha256(Buffer.alloc(0)) });
  });

  it('ignores a file under another name, storing nothing of it', async () => {
    const { base, seen, tmpDir } = await uploadServer();
    const form = new FormData();
    form.set('attachment', new Blob([audio(1000)]), 'other.bin');
    form.set('source_audio', new Blob([audio(10)]), 'a.wav');
    const answer = await post(base, form);
    expect(answer.json.file).toMatchObject({ name: 'a.wav', size: 10 });
    expect(seen.fileStarts).toBe(1);
    expect(seen.bytes).toBe(10);
    expect(await readdir(tmpDir)).toHaveLength(1);
  });

  it('refuses a field given twice, or two files, with 400, and removes what it stored', async () => {
    const { base, tmpDir } = await uploadServer();
    const twice = new FormData();
    twice.append('age', 'senior-adult');
    twice.append('age', 'young-adult');
    twice.set('source_audio', new Blob([audio(100)]), 'a.wav');
    expect(await post(base, twice)).toEqual({
      status: 400,
      json: { error: 400, message: 'field "age" is given more than once' },
    });
    const twoFiles = new FormData();
    twoFiles.append('source_audio', new Blob([audio(100)]), 'a.wav');
    twoFiles.append('source_audio', new Blob([audio(100)]), 'b.wav');
    expect(await post(base, twoFiles)).toEqual({
      status: 400,
      json: { error: 400, message: 'only one "source_audio" file may be sent' },
    });
    await vi.waitFor(async () => expect(await readdir(tmpDir)).toEqual([]), WAIT);
  });

  it('refuses a source_audio part without a file name, which multipart reads as a text field, saying so', async () => {
    const { base } = await uploadServer();
    const part = (bytes: number) =>
      '--XYZ\r\nContent-Disposition: form-data; name="source_audio"; filename=""\r\n' +
      `Content-Type: audio/wav\r\n\r\n${'R'.repeat(bytes)}\r\n--XYZ--\r\n`;
    for (const size of [100, 5000]) {
      const answer = await post(base, part(size), { 'content-type': 'multipart/form-data; boundary=XYZ' });
      expect(answer).toEqual({ status: 400, json: { error: 400, message: expect.any(String) } });
      expect(answer.json.message).toMatch(/"source_audio" must be a file part.*file name/);
    }
  });

  it('refuses a field over 1 KiB, and too many fields', async () => {
    const { base } = await uploadServer();
    const long = new FormData();
    long.set('avatar', 'x'.repeat(1025));
    expect(await post(base, long)).toEqual({
      status: 400,
      json: { error: 400, message: 'field "avatar" is too long' },
    });
    const many = new FormData();
    for (let i = 0; i < 33; i++) many.set(`f${i}`, 'v');
    expect(await post(base, many)).toEqual({
      status: 400,
      json: { error: 400, message: 'too many fields in the form' },
    });
  });

  it('refuses a body that is not multipart, or a multipart body cut short', async () => {
    const { base } = await uploadServer();
    expect(await post(base, '{"source_audio":"x"}', { 'content-type': 'application/json' })).toEqual({
      status: 400,
      json: { error: 400, message: 'the body must be multipart/form-data' },
    });
    const torn = '--XYZ\r\nContent-Disposition: form-data; name="source_audio"; filename="a.wav"\r\n\r\nabc';
    const answer = await post(base, torn, { 'content-type': 'multipart/form-data; boundary=XYZ' });
    expect(answer.status).toBe(400);
    expect(answer.json.message).toMatch(/^the multipart body could not be read: /);
  });

  it('accepts a file of exactly the limit and refuses one byte more with 413, keeping nothing', async () => {
    const { base, tmpDir } = await uploadServer();
    const atLimit = new FormData();
    atLimit.set('source_audio', new Blob([Buffer.alloc(MAX_UPLOAD_BYTES, 1)]), 'limit.wav');
    const accepted = await post(base, atLimit);
    expect(accepted.status).toBe(200);
    expect(accepted.json.file).toMatchObject({ size: MAX_UPLOAD_BYTES });
    const acceptedPath = (accepted.json.file as { path: string }).path;

    const over = new FormData();
    over.set('source_audio', new Blob([Buffer.alloc(MAX_UPLOAD_BYTES + 1, 1)]), 'over.wav');
    expect(await post(base, over)).toEqual({
      status: 413,
      json: { error: 413, message: `the file is larger than the 10 MB limit (${MAX_UPLOAD_BYTES} bytes)` },
    });
    // Well over the limit too: the refusal comes in the middle of the file.
    const wellOver = new FormData();
    wellOver.set('source_audio', new Blob([Buffer.alloc(MAX_UPLOAD_BYTES + (1 << 20), 1)]), 'big.wav');
    expect((await post(base, wellOver)).status).toBe(413);
    // Only the accepted file is left (the caller owns it); the refused ones' bytes are gone, even when
    // the form's end came in with the byte over the limit.
    await vi.waitFor(
      async () => expect((await readdir(tmpDir)).map((name) => join(tmpDir, name))).toEqual([acceptedPath]),
      WAIT,
    );
  });

  it('tells a client that went away mid-upload, and removes the partial file', async () => {
    const { base, seen, tmpDir } = await uploadServer();
    const client = unfinishedUpload(base);
    client.write(audio(50_000));
    await vi.waitFor(() => expect(seen.bytes).toBe(50_000), WAIT);
    expect(await readdir(tmpDir)).toHaveLength(1);
    client.destroy();
    await vi.waitFor(() => expect(seen.outcomes).toEqual([{ kind: 'aborted' }]), WAIT);
    await vi.waitFor(async () => expect(await readdir(tmpDir)).toEqual([]), WAIT);
    expect(existsSync(join(tmpDir, 'part-0'))).toBe(false);
  });

  it('tells a client that went away after its file was whole, and removes that file too', async () => {
    const { base, seen, tmpDir } = await uploadServer();
    const client = unfinishedUpload(base);
    client.write(audio(2000));
    client.write('\r\n--XYZ\r\nContent-Disposition: form-data; name="age"\r\n\r\nsen');
    await vi.waitFor(() => expect(seen.bytes).toBe(2000), WAIT);
    client.destroy();
    await vi.waitFor(() => expect(seen.outcomes).toEqual([{ kind: 'aborted' }]), WAIT);
    await vi.waitFor(async () => expect(await readdir(tmpDir)).toEqual([]), WAIT);
  });
});
