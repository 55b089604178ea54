/** The clean-room service's HTTP plumbing: reading requests, listening and closing on loopback. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import busboy from 'busboy';
import type { ReceivedRequest } from './clean-room-server.js';

export async function readMultipart(
  req: http.IncomingMessage,
  record: ReceivedRequest,
): Promise<Buffer | undefined> {
  const type = req.headers['content-type'] ?? '';
  if (!type.startsWith('multipart/form-data')) return (await drain(req), undefined);
  return new Promise((resolve, reject) => {
    let file: Buffer | undefined;
    const parser = busboy({ headers: req.headers });
    parser.on('field', (name, value) => (record.fields[name] = value));
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (name !== 'source_audio') return;
        file = Buffer.concat(chunks);
        record.fileName = info.filename;
        record.fileBytes = file.length;
      });
    });
    parser.on('close', () => resolve(file));
    parser.on('error', reject);
    req.pipe(parser);
  });
}

export async function readJson(req: http.IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export async function drain(req: http.IncomingMessage): Promise<void> {
  for await (const chunk of req) void chunk;
}

export async function listen(server: http.Server): Promise<void> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
}

export function originOf(server: http.Server): string {
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
