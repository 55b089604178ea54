/**
 * A file host (file-host.ts) whose job lists `count` WAVs and that sends half of each and holds the
 * rest until `release()`: the files in flight at an interrupt are known (those whose GET came), and
 * whether they were let finish shows in the folder. Once released, every file is sent whole.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startFileHost } from './file-host.js';
import { chunk, fmtPcm, riff } from './signal.js';

/** A whole 8 kHz mono 16-bit WAV of `bytes` of samples, each file's own (`seed`). */
export function seededWav(seed: number, bytes = 64 * 1024): Buffer {
  const data = Buffer.alloc(bytes, seed % 251);
  return riff([chunk('fmt ', fmtPcm(1, 8000, 16)), chunk('data', data)]);
}

export interface HoldingFileHost {
  baseUrl: string;
  /** The files listed, by name, with the bytes each is served with. */
  files: Record<string, Buffer>;
  /** How many GETs of a file's signed URL came, of all files. */
  gets(): number;
  /** How many GETs of `name` came. */
  fileGets(name: string): number;
  /** Sends the rest of every body held, and every later one whole. */
  release(): void;
  close(): Promise<void>;
}

export async function startHoldingFileHost(count: number): Promise<HoldingFileHost> {
  const files = Object.fromEntries(
    Array.from({ length: count }, (_, i) => [`f${i}.wav`, seededWav(i + 1)] as const),
  );
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const server = await startFileHost(files, async (name, res) => {
    const bytes = files[name] as Buffer;
    res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(bytes.length) });
    const half = bytes.length / 2;
    res.write(bytes.subarray(0, half));
    await released;
    res.end(bytes.subarray(half));
  });
  return {
    baseUrl: server.baseUrl,
    files,
    gets: () => server.received.filter((r) => r.method === 'GET' && r.url.startsWith('/files/')).length,
    fileGets: (name) => server.fileGets(name),
    release,
    close: () => {
      release();
      return server.close();
    },
  };
}

/** The names in `out`, sorted, and whether each holds exactly the bytes the host serves for it. */
export async function savedFiles(
  out: string,
  host: Pick<HoldingFileHost, 'files'>,
): Promise<{ names: string[]; whole: boolean }> {
  const names = (await readdir(out).catch(() => [] as string[])).sort();
  const contents = await Promise.all(names.map((name) => readFile(join(out, name))));
  const whole = names.every((name, i) => host.files[name]?.equals(contents[i] as Buffer) === true);
  return { names, whole };
}
