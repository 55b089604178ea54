import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import busboy from 'busboy';
import { describe, expect, it } from 'vitest';
import { multipartWithFile } from '../../src/api/multipart.js';
import { tempDirPerTest } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-multipart-');

interface Parsed {
  fields: Record<string, string>;
  file?: { field: string; name: string; type: string; bytes: Buffer };
}

/** Parses a body as a server would (busboy, as the sandbox does). */
async function parse(contentType: string, body: Buffer | Readable): Promise<Parsed> {
  const parsed: Parsed = { fields: {} };
  const parser = busboy({ headers: { 'content-type': contentType } });
  const done = new Promise<void>((resolve, reject) => {
    parser.on('field', (name, value) => {
      parsed.fields[name] = value;
    });
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        parsed.file = { field, name: info.filename ?? '', type: info.mimeType, bytes: Buffer.concat(chunks) };
      });
    });
    parser.on('close', resolve);
    parser.on('error', reject);
  });
  (Buffer.isBuffer(body) ? Readable.from([body]) : body).pipe(parser);
  await done;
  return parsed;
}

async function bytesOf(body: Buffer | Readable): Promise<number> {
  if (Buffer.isBuffer(body)) return body.length;
  let n = 0;
  for await (const chunk of body) n += (chunk as Buffer).length;
  return n;
}

describe('multipartWithFile', () => {
  it.each([
    ['a small file (read whole)', 1000],
    ['a large file (streamed)', 600 * 1024],
    ['an empty file', 0],
  ])(
    '%s: a server reads back every field and the exact bytes, and the length is exact',
    async (_name, size) => {
      const path = join(dir.path, 'in.wav');
      const content = Buffer.alloc(size, 7);
      await writeFile(path, content);
      const fields = { gender: 'opposite', avatar: 'déjà "vu"' };
      const first = await multipartWithFile(fields, 'source_audio', path, 'in.ab12cd34.wav', 'audio/wav');
      expect(await bytesOf(first.body)).toBe(first.contentLength);
      const again = await multipartWithFile(fields, 'source_audio', path, 'in.ab12cd34.wav', 'audio/wav');
      const parsed = await parse(again.contentType, again.body);
      expect(parsed.fields).toEqual(fields);
      expect(parsed.file?.field).toBe('source_audio');
      expect(parsed.file?.name).toBe('in.ab12cd34.wav');
      expect(parsed.file?.type).toBe('audio/wav');
      expect(parsed.file?.bytes.equals(content)).toBe(true);
    },
  );

  it('a hostile file name cannot break out of its header: quotes and line breaks are encoded', async () => {
    const path = join(dir.path, 'in.wav');
    await writeFile(path, Buffer.from('RIFF'));
    const name = 'a"\r\nX-Injected: 1\r\n\r\nx.wav';
    const body = await multipartWithFile({}, 'source_audio', path, name, 'audio/wav');
    const parsed = await parse(body.contentType, body.body);
    expect(parsed.file?.type).toBe('audio/wav');
    expect(parsed.file?.name).toBe('a%22%0D%0AX-Injected: 1%0D%0A%0D%0Ax.wav');
    expect(parsed.file?.bytes.toString()).toBe('RIFF');
  });

  it('a missing file fails before any request, as a file-system error', async () => {
    await expect(
      multipartWithFile({}, 'source_audio', join(dir.path, 'gone.wav'), 'gone.wav', 'audio/wav'),
    ).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('sends the bytes it is handed, as checked, without reading the file again', async () => {
    const path = join(dir.path, 'in.wav');
    await writeFile(path, Buffer.from('what the disk holds now'));
    const checked = Buffer.from('the bytes that were checked');
    const body = await multipartWithFile(
      { gender: 'male' },
      'source_audio',
      path,
      'in.wav',
      'audio/wav',
      checked,
    );
    expect(await bytesOf(body.body)).toBe(body.contentLength);
    const parsed = await parse(body.contentType, body.body);
    expect(parsed.fields).toEqual({ gender: 'male' });
    expect(parsed.file?.bytes.equals(checked)).toBe(true);
    // Nor does a missing file matter then: nothing is opened.
    const gone = await multipartWithFile(
      {},
      'source_audio',
      join(dir.path, 'gone.wav'),
      'g.wav',
      'audio/wav',
      checked,
    );
    expect((await parse(gone.contentType, gone.body)).file?.bytes.equals(checked)).toBe(true);
  });

  it.each([
    ['read whole', 1000],
    ['streamed', 600 * 1024],
  ])('tells the SHA-256 of the file bytes it put in the body (%s)', async (_name, size) => {
    const path = join(dir.path, 'in.wav');
    const content = Buffer.alloc(size);
    for (let i = 0; i < size; i++) content[i] = (i * 7) % 251;
    await writeFile(path, content);
    let told: string | undefined;
    const body = await multipartWithFile(
      {},
      'source_audio',
      path,
      'in.wav',
      'audio/wav',
      undefined,
      (sha) => {
        told = sha;
      },
    );
    const parsed = await parse(body.contentType, body.body);
    expect(parsed.file?.bytes.equals(content)).toBe(true);
    expect(told).toBe(createHash('sha256').update(content).digest('hex'));
  });
});
