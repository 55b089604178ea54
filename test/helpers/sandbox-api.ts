/** Shared pieces of the sandbox tests: an in-process sandbox per test, an HTTP client, audio generators. */
import { openAsBlob } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { FormData, request, Response } from 'undici';
import { afterEach } from 'vitest';
import { pcm16MonoHeader } from '../../src/audio/wav-encode.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/sandbox/index.js';
import type { ContentItem } from '../../src/sandbox/store.js';
import { FIXTURES, fixture, tempDir } from './cli.js';

export { FIXTURES, fixture };

export const TOKEN = 'vr_test_owner_0123456789';
export const OTHER_TOKEN = 'vr_test_other_9876543210';

const cleanups: Array<() => Promise<void>> = [];

/** Registers the cleanup of servers and folders made by the helpers below after each test. */
export function useCleanup(): void {
  afterEach(async () => {
    const pending = cleanups.splice(0).reverse();
    for (const cleanup of pending) await cleanup();
  });
}

export async function startTestSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const sandbox = await startSandbox({ port: 0, tokens: [TOKEN, OTHER_TOKEN], ...options });
  cleanups.push(() => sandbox.close());
  return sandbox;
}

export async function testDir(): Promise<string> {
  const dir = await tempDir('vredact-sandbox-test-');
  cleanups.push(dir.cleanup);
  return dir.path;
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  text: string;
  json: () => unknown;
}

async function answerOf(response: Awaited<ReturnType<typeof request>>): Promise<Answer> {
  const body = Buffer.from(await response.body.arrayBuffer());
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  const text = body.toString('utf8');
  return { status: response.statusCode, headers, body, text, json: () => JSON.parse(text) };
}

export interface CallOptions {
  /** Bearer token to send; null sends no Authorization header; a string starting with "raw:" is sent as is. */
  token?: string | null;
  json?: unknown;
  body?: string | FormData;
  headers?: Record<string, string>;
}

/** One HTTP request to `base + path`; never throws on a status. */
export async function call(
  base: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD',
  path: string,
  options: CallOptions = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? TOKEN : options.token;
  if (token !== null) headers.authorization = token.startsWith('raw:') ? token.slice(4) : `Bearer ${token}`;
  let body: string | Buffer | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.body instanceof FormData) {
    // Encoded to bytes first (undici's own multipart encoding, the same bytes on the wire): on
    // Node 24, undici 7's request() streaming a FormData to a server in the same process never
    // sends the body, so these in-process tests hung. A server in another process is not affected.
    const encoded = new Response(options.body);
    headers['content-type'] = encoded.headers.get('content-type') ?? '';
    body = Buffer.from(await encoded.arrayBuffer());
  } else {
    body = options.body;
  }
  return answerOf(await request(`${base}${path}`, { method, headers, body }));
}

/** Sends a file to the redaction endpoint, as vredact does (fields first, then the file). */
export async function redact(
  base: string,
  filePath: string,
  options: { token?: string | null; fields?: Record<string, string>; fileName?: string; type?: string } = {},
): Promise<Answer> {
  const form = new FormData();
  for (const [name, value] of Object.entries(options.fields ?? {})) form.append(name, value);
  const type = options.type ?? (filePath.toLowerCase().endsWith('.mp3') ? 'audio/mpeg' : 'audio/wav');
  form.append(
    'source_audio',
    await openAsBlob(filePath, { type }),
    options.fileName ?? filePath.split('/').pop(),
  );
  return call(base, 'POST', '/api/speech-to-speech-biometric-redaction', {
    token: options.token,
    body: form,
  });
}

export const isWav = (bytes: Buffer) =>
  bytes.length >= 12 &&
  bytes.toString('latin1', 0, 4) === 'RIFF' &&
  bytes.toString('latin1', 8, 12) === 'WAVE';

/** A 16-bit mono WAV: half silence, half a 220 Hz tone. */
export async function writeWav(path: string, seconds: number, sampleRate = 16_000): Promise<string> {
  const samples = Math.round(seconds * sampleRate);
  const data = Buffer.alloc(samples * 2);
  for (let i = samples >> 1; i < samples; i++) {
    data.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 220 * i) / sampleRate)), i * 2);
  }
  const header = pcm16MonoHeader(samples, sampleRate);
  await writeFile(path, Buffer.concat([header, data]));
  return path;
}

/**
 * A silent MP3 of at least `seconds`: MPEG-2.5 Layer III, 8 kbit/s, 8 kHz mono, 72-byte frames
 * of 576 samples whose side information is all zero (no audio data), so an hour is about 3.6 MB.
 */
export async function writeSilentMp3(path: string, seconds: number): Promise<string> {
  const frames = Math.ceil((seconds * 8000) / 576);
  const frame = Buffer.alloc(72);
  frame.set([0xff, 0xe3, 0x18, 0xc4]);
  const out = Buffer.alloc(frames * 72);
  for (let i = 0; i < frames; i++) frame.copy(out, i * 72);
  await writeFile(path, out);
  return path;
}

/** Bytes that are no audio at all, of an exact size. */
export async function writeJunk(path: string, size: number): Promise<string> {
  await writeFile(path, Buffer.alloc(size, 0x41));
  return path;
}

/** Calls `probe` until it returns something other than undefined (default: up to 30 s). */
export async function waitFor<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(50);
  }
}

export type { ContentItem };

export async function contentOf(base: string, jobId: string, token = TOKEN): Promise<ContentItem[]> {
  const answer = await call(base, 'GET', `/api/jobs/${encodeURIComponent(jobId)}/content`, { token });
  if (answer.status !== 200) throw new Error(`content of ${jobId}: ${answer.status} ${answer.text}`);
  return (answer.json() as { jobContent: ContentItem[] }).jobContent;
}

/** Waits until the job lists a result item (a WAV that is not the upload's own name). */
export async function waitForResult(base: string, jobId: string, sourceName: string): Promise<ContentItem> {
  return waitFor(async () => {
    const items = await contentOf(base, jobId);
    return items.find(
      (item) => item.file_name !== sourceName && item.file_name.toLowerCase().endsWith('.wav'),
    );
  }, `the result of job ${jobId}`);
}
