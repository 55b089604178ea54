/**
 * Local checks of one recording before it is sent: a file that fails one is rejected with its
 * reason and never uploaded. music-metadata is loaded on first use only.
 */
import { createHash } from 'node:crypto';
import { close, read, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { AudioDecodeError } from '../audio/errors.js';
import { type Mp3Scan, scanMp3File } from '../audio/mp3-frames.js';
import { sniffFormat } from '../audio/sniff.js';
import { WavFormatError, WavReader, type WavSummary } from '../audio/riff.js';
import { describeFsError } from '../fs/errors.js';
import { openRegularFd } from '../fs/regular-file.js';
import { formatBytes, formatLength } from '../output/format.js';
import { mpegLayerOneOrTwo, notWavOrMp3, tooLarge, tooLong, unusableWav } from './probe-reasons.js';

export interface ProbeLimits {
  maxSize: number;
  maxDurationSec: number;
}

export type ProbeResult =
  | {
      ok: true;
      size: number;
      mtimeMs: number;
      format: 'WAV' | 'MP3';
      durationSec: number;
      /** SHA-256 (hex) of the bytes checked. */
      sha256: string;
      /** The bytes checked, when the file was small enough to be read whole: they are what is sent. */
      bytes?: Buffer;
      /** Something odd about a file that is still sent (a WAV cut short: its audio present is sent). */
      warning?: string;
    }
  | { ok: false; reason: string; size?: number; mtimeMs?: number };

const readFd = promisify(read);
const closeFd = promisify(close);

/** Files up to this size are read whole by the first read. */
const WHOLE_READ_BYTES = 256 * 1024;

async function readHead(fd: number, n: number): Promise<Buffer> {
  // Filled by the read below; only the bytes read are handed on.
  const buffer = Buffer.allocUnsafe(n);
  const { bytesRead } = await readFd(fd, buffer, 0, n, 0);
  return buffer.subarray(0, bytesRead);
}

const CHUNK_BYTES = 64 * 1024;

/**
 * The open file's bytes from its start. Not an fs read stream: destroying one (a loop left early, a
 * parser done) closes its descriptor, which the probe closes itself once every read is over.
 */
async function* bytesOf(fd: number): AsyncGenerator<Buffer> {
  for (let position = 0; ;) {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    const { bytesRead } = await readFd(fd, buffer, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) return;
    position += bytesRead;
    yield buffer.subarray(0, bytesRead);
  }
}

/**
 * Checks one file: it exists and is a regular, readable file; its size is above 0 and within
 * `maxSize`; it is a WAV or an MP3 (by its content: a container music-metadata names is checked, and
 * where it names none, as for a tag alone or a call of one or two frames, the frame walker decides); its duration is above 0 and within
 * `maxDurationSec`. An MP3's duration is always counted frame by frame, by the sandbox's own walker
 * (audio/mp3-frames.ts): a header-less VBR file would otherwise be misjudged, and any other count
 * could let through a file that the service finds a few milliseconds over the limit. `statPath` is
 * the path's stat (a test's stands for a file replaced just after it).
 */
export async function probeFile(
  path: string,
  limits: ProbeLimits,
  statPath: (path: string) => Promise<Stats> = stat,
): Promise<ProbeResult> {
  let info: Stats;
  try {
    info = await statPath(path);
  } catch (error) {
    return { ok: false, reason: describeFsError(error) };
  }
  // What the path's stat rules out is never opened (a device's open alone can have effects).
  const refused = refusedByStats(info, limits);
  if (refused) return { ok: false, reason: refused, size: info.size, mtimeMs: info.mtimeMs };
  let opened: Awaited<ReturnType<typeof openRegularFd>>;
  try {
    opened = await openRegularFd(path);
  } catch (error) {
    return { ok: false, reason: describeFsError(error), size: info.size, mtimeMs: info.mtimeMs };
  }
  try {
    return await probeOpen(path, opened.fd, opened.stats, limits);
  } finally {
    await closeFd(opened.fd).catch(() => {});
  }
}

/** Why a file of these stats is rejected before it is read, if it is. */
function refusedByStats(info: Stats, limits: ProbeLimits): string | undefined {
  if (!info.isFile()) return info.isDirectory() ? 'a folder, not a file' : 'not a regular file';
  if (info.size === 0) return 'empty file (0 bytes)';
  if (info.size > limits.maxSize) return tooLarge(info.size, limits.maxSize);
  return undefined;
}

/** The checks of the file open at `fd`, whose own stats (not its path's) are `info`. */
async function probeOpen(path: string, fd: number, info: Stats, limits: ProbeLimits): Promise<ProbeResult> {
  const size = info.size;
  const mtimeMs = info.mtimeMs;
  const reject = (reason: string): ProbeResult => ({ ok: false, reason, size, mtimeMs });
  // Replaced since the path's stat: what was opened is what is judged.
  const refused = refusedByStats(info, limits);
  if (refused) return reject(refused);

  // Small files (most recordings of an archive of short calls) are read in one go.
  let head: Buffer;
  try {
    head = await readHead(fd, Math.min(size, WHOLE_READ_BYTES));
  } catch (error) {
    return reject(describeFsError(error));
  }
  const sniffed = sniffFormat(head);
  if (!sniffed) return reject(notWavOrMp3(head));

  let duration: number;
  let sha256: string;
  let warning: string | undefined;
  if (sniffed === 'WAV') {
    // One read of the file: its RIFF chunks walked and its bytes hashed as they pass.
    const reader = new WavReader({ strict: false });
    const hash = createHash('sha256');
    try {
      const chunks = head.length === size ? [head] : bytesOf(fd);
      for await (const chunk of chunks) {
        hash.update(chunk);
        reader.push(chunk);
      }
      const summary = reader.finish();
      duration = summary.durationSec;
      warning = cutShortWarning(summary, duration);
    } catch (error) {
      if (error instanceof WavFormatError) return reject(unusableWav(error));
      return reject(describeFsError(error));
    }
    if (!(duration > 0)) return reject('no audio: the WAV file holds no samples');
    sha256 = hash.digest('hex');
  } else {
    const mp3 = await checkMp3(path, fd, size);
    if (!mp3.ok) return reject(mp3.reason);
    duration = mp3.durationSec;
    try {
      sha256 = head.length === size ? createHash('sha256').update(head).digest('hex') : await hashOf(fd);
    } catch (error) {
      return reject(describeFsError(error));
    }
  }
  const format = sniffed;
  if (!(duration > 0)) return reject('no audio: its duration is 0');
  if (duration > limits.maxDurationSec) {
    return reject(tooLong(duration, limits.maxDurationSec));
  }
  const whole = head.length === size ? { bytes: head } : {};
  return {
    ok: true,
    size,
    mtimeMs,
    format,
    durationSec: duration,
    sha256,
    ...whole,
    ...(warning ? { warning } : {}),
  };
}

/**
 * A recorder that stopped mid-call leaves a WAV whose data chunk declares more than it holds. The audio
 * present is what gets measured, sent and checked against the result: the user is told, not refused.
 */
function cutShortWarning(summary: WavSummary, durationSec: number): string | undefined {
  if (!summary.cutShort) return undefined;
  return (
    `the WAV file is cut short: its audio holds ${formatBytes(summary.dataBytes)} of the ` +
    `${formatBytes(summary.declaredDataBytes)} its header declares; the ${formatLength(durationSec)} present is sent`
  );
}

async function hashOf(fd: number): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of bytesOf(fd)) hash.update(chunk);
  return hash.digest('hex');
}

/**
 * An MP3 by its content (music-metadata is told what the bytes are, since with a file name it trusts
 * the extension), its duration counted frame by frame by the sandbox's own walker
 * (audio/mp3-frames.ts): a header-less VBR file would otherwise be misjudged.
 */
async function checkMp3(
  path: string,
  fd: number,
  size: number,
): Promise<{ ok: true; durationSec: number } | { ok: false; reason: string }> {
  const { parseStream } = await import('music-metadata');
  let container: string | undefined;
  let codec: string | undefined;
  const stream = Readable.from(bytesOf(fd), { objectMode: false });
  try {
    const metadata = await parseStream(
      stream,
      { mimeType: 'audio/mpeg', size },
      { duration: false, skipCovers: true, skipPostHeaders: true },
    );
    container = metadata.format.container;
    codec = metadata.format.codec;
  } catch (error) {
    return { ok: false, reason: `not a readable MP3 file (${(error as Error).message})` };
  } finally {
    stream.destroy();
  }
  // No container at all is music-metadata finding no run of frames to sync on: a call of one or two
  // frames (under 150 ms), or a tag with no audio after it. The frame walker decides those.
  if (container !== undefined && (container !== 'MPEG' || !/layer 3/i.test(codec ?? ''))) {
    return { ok: false, reason: `not a WAV or MP3 file${codec ? ` (it is ${codec})` : ''}` };
  }
  let scanned: Mp3Scan;
  try {
    scanned = await scanMp3File(path);
  } catch (error) {
    if (error instanceof AudioDecodeError)
      return { ok: false, reason: 'no audio: no MP3 audio frames found' };
    return { ok: false, reason: describeFsError(error) };
  }
  if (scanned.layer !== 3) {
    return { ok: false, reason: mpegLayerOneOrTwo(scanned.layer) };
  }
  if (scanned.audioFrames === 0) return { ok: false, reason: 'no audio: no MP3 audio frames found' };
  // Gapless trimming included, as the service counts: exactly its figure, not one a few ms longer.
  return { ok: true, durationSec: scanned.totalSamples / scanned.sampleRate };
}
