/**
 * MPEG audio frame headers: enough of ISO 11172-3 / 13818-3 to walk a file
 * frame by frame without decoding it. Duration comes from counting frames,
 * which is exact for CBR and VBR alike, with or without a Xing, Info or VBRI header.
 *
 * The sandbox's decoder and the CLI's local checks both count with this one
 * walker, so a file the CLI measures within the 60-minute limit is measured
 * the same, to the sample, by the sandbox. The CLI's probe loads this module:
 * it must not import the decoder, the worker or anything else heavy.
 */
import { openRegularFile } from '../fs/regular-file.js';
import { AudioDecodeError } from './errors.js';
import { FileWindow } from './file-io.js';
import { type Mp3FrameHeader, parseMp3Header, sameStream } from './mp3-header.js';

/** A header frame's tag: LAME's Xing (VBR) or Info (CBR), or Fraunhofer's VBRI. */
export type Mp3HeaderTag = 'Xing' | 'Info' | 'VBRI';

interface HeaderFrame {
  tag: Mp3HeaderTag;
  /** The encoder delay and padding a gapless decoder trims; both 0 when the tag vouches for none. */
  delay: number;
  padding: number;
  /** Whether the tag carries trusted gapless figures (a LAME extension with an encoder name). */
  gapless: boolean;
}

/**
 * The header frame that an encoder puts first: it carries no audio, so it is never counted. Only a
 * LAME extension's encoder delay and padding are trimmed; a VBRI tag's delay is not, nor is anything
 * without an extension: ffmpeg trims none (libavformat/mp3dec.c reads the delays for LAME, Lavf and
 * Lavc tags alone, and skips VBRI's), so the service's decoder keeps those samples too. Nor is a
 * tag without a frame count: mpg123, the sandbox's decoder, trims all or nothing and needs the count
 * to place the end (frame_gapless_init); ffmpeg would still skip the delay at the start.
 */
function readHeaderFrame(frame: Uint8Array, h: Mp3FrameHeader): HeaderFrame | null {
  if (h.layer !== 3) return null;
  // VBRI is at a fixed place, 32 bytes after the frame header, whatever the layout.
  if (frame.length >= 4 + 32 + 4 && tagAt(frame, 4 + 32) === 'VBRI') {
    return { tag: 'VBRI', delay: 0, padding: 0, gapless: false };
  }
  const sideInfo = h.version === 1 ? (h.channels === 1 ? 17 : 32) : h.channels === 1 ? 9 : 17;
  // Written by `lame -p`, the CRC puts the tag 2 bytes later; mpg123 looks for it there too.
  const at = 4 + (h.crc ? 2 : 0) + sideInfo;
  if (frame.length < at + 8) return null;
  const tag = tagAt(frame, at);
  if (tag !== 'Xing' && tag !== 'Info') return null;
  const none = { tag, delay: 0, padding: 0, gapless: false } as const;
  const flags = frame[at + 7]!;
  if (!(flags & 1)) return none;
  let lame = at + 8;
  if (flags & 1) lame += 4; // frame count
  if (flags & 2) lame += 4; // byte count
  if (flags & 4) lame += 100; // seek table
  if (flags & 8) lame += 4; // quality
  if (frame.length < lame + 24) return none;
  // Only trust the field when an encoder version string precedes it (LAME, Lavc, …).
  const printable = [0, 1, 2, 3].every((i) => {
    const c = frame[lame + i]!;
    return c >= 0x20 && c < 0x7f;
  });
  if (!printable) return none;
  const d0 = frame[lame + 21]!;
  const d1 = frame[lame + 22]!;
  const d2 = frame[lame + 23]!;
  return { tag, delay: (d0 << 4) | (d1 >> 4), padding: ((d1 & 0x0f) << 8) | d2, gapless: true };
}

/** The samples a decoder adds before the encoder's first one (528 + 1, as ffmpeg and mpg123 say). */
const DECODER_DELAY = 529;

/**
 * How many of the decoded samples a gapless decoder drops. Both ffmpeg and mpg123 skip the delay
 * plus the decoder's own at the start and end at frames × samples-per-frame + 529 − padding: past
 * the last sample decoded when the padding is under 529, so at least 529 go in all.
 */
function gaplessTrim(info: HeaderFrame | null): number {
  if (!info?.gapless) return 0;
  return info.delay + Math.max(info.padding, DECODER_DELAY);
}

function tagAt(frame: Uint8Array, at: number): string {
  return String.fromCharCode(frame[at]!, frame[at + 1]!, frame[at + 2]!, frame[at + 3]!);
}

/** Size of an ID3v2 tag starting at `b[0]` (header + body + footer), or 0. */
export function id3v2Size(b: Uint8Array): number {
  if (b.length < 10 || b[0] !== 0x49 || b[1] !== 0x44 || b[2] !== 0x33) return 0; // "ID3"
  if (b[3] === 0xff || b[4] === 0xff) return 0;
  const s = [b[6]!, b[7]!, b[8]!, b[9]!];
  if (s.some((x) => x & 0x80)) return 0; // sizes are sync-safe (7 bits per byte)
  const body = (s[0]! << 21) | (s[1]! << 14) | (s[2]! << 7) | s[3]!;
  return 10 + body + (b[5]! & 0x10 ? 10 : 0);
}

export interface Mp3Scan {
  /** Byte offset of the first frame (after ID3v2 tags and junk). */
  firstFrame: number;
  /** Of the first frame; only frames of the same version, layer and rate are counted. */
  version: Mp3FrameHeader['version'];
  layer: Mp3FrameHeader['layer'];
  sampleRate: number;
  /** The first frame's Xing/Info/VBRI tag, when it is one (that frame is then not audio). */
  infoHeader: Mp3HeaderTag | undefined;
  /**
   * Where the decoder is to be fed from, so that it gives exactly `totalSamples`: the header frame
   * when mpg123 must read its gapless figures from it, else the first audio frame. mpg123 cuts its
   * 529-sample decoder delay on seeing any Xing/Info frame with a frame count, figures or not, and
   * knows no VBRI frame (it would decode it as a frame of silence).
   */
  decoderStart: number;
  /**
   * Where the decoder is to stop: just after the last frame counted. Bytes past it (a trailing tag, a
   * crashed writer's garbage) are not fed: a false frame header of another rate in them made the
   * decoder label every sample of its block with that rate.
   */
  audioEnd: number;
  /** Frames holding audio (the header frame excluded). */
  audioFrames: number;
  samplesPerFrame: number;
  encoderDelay: number;
  encoderPadding: number;
  /** Decoded length after gapless trimming, in samples at `sampleRate`. */
  totalSamples: number;
}

/** How far past the tags we look for the first frame before calling the file "not MP3". */
const MAX_LEADING_JUNK = 64 * 1024;

/**
 * True when a frame header at `pos` is followed by another of the same stream
 * (or by the end of the file): one header alone is too easy to find by chance.
 */
async function confirmedFrame(win: FileWindow, pos: number): Promise<Mp3FrameHeader | null> {
  if (!win.has(pos, 4) && !(await win.load(pos, 4))) return null;
  const h = parseMp3Header(win.byte(pos), win.byte(pos + 1), win.byte(pos + 2), win.byte(pos + 3));
  if (!h) return null;
  const next = pos + h.frameBytes;
  if (next === win.size) return h;
  if (next + 4 > win.size) return null;
  if (!win.has(next, 4) && !(await win.load(pos, h.frameBytes + 4))) return null;
  const h2 = parseMp3Header(win.byte(next), win.byte(next + 1), win.byte(next + 2), win.byte(next + 3));
  return h2 && sameStream(h, h2) ? h : null;
}

async function skipId3v2(win: FileWindow, start: number): Promise<number> {
  let pos = start;
  for (;;) {
    if (!win.has(pos, 10) && !(await win.load(pos, 10))) return pos;
    const size = id3v2Size(win.view(pos, 10));
    if (size === 0) return pos;
    pos += size;
  }
}

/** Finds the first confirmed frame at or after `from`, scanning at most `limit` bytes. */
async function syncFrom(win: FileWindow, from: number, limit: number): Promise<number> {
  const end = Math.min(win.size - 4, from + limit);
  for (let pos = from; pos <= end; pos++) {
    if (!win.has(pos, 2) && !(await win.load(pos, 2))) return -1;
    if (win.byte(pos) !== 0xff || (win.byte(pos + 1) & 0xe0) !== 0xe0) continue;
    if (await confirmedFrame(win, pos)) return pos;
  }
  return -1;
}

/** Cheap check on the first bytes of a file: an ID3v2 tag or a confirmed frame sync near the start. */
export function looksLikeMp3(head: Uint8Array): boolean {
  if (id3v2Size(head) > 0) return true;
  for (let pos = 0; pos + 4 <= head.length && pos < 4096; pos++) {
    const h = parseMp3Header(head[pos]!, head[pos + 1]!, head[pos + 2]!, head[pos + 3]!);
    if (!h) continue;
    const next = pos + h.frameBytes;
    if (next === head.length) return true;
    if (next + 4 > head.length) continue;
    const h2 = parseMp3Header(head[next]!, head[next + 1]!, head[next + 2]!, head[next + 3]!);
    if (h2 && sameStream(h, h2)) return true;
  }
  return false;
}

/**
 * Counts the frames of an MP3 file by hopping from header to header.
 * Reads the file in 1 MiB blocks and never decodes, so an hour-long file
 * takes a fraction of a second. Junk between frames (a mid-stream ID3 tag,
 * a trailing ID3v1/APE tag, damaged bytes) is skipped by resyncing.
 */
export async function scanMp3(win: FileWindow): Promise<Mp3Scan> {
  const afterTags = await skipId3v2(win, 0);
  const first = await syncFrom(win, afterTags, MAX_LEADING_JUNK);
  if (first < 0) {
    throw new AudioDecodeError(afterTags > 0 ? 'the MP3 file has no audio frames' : 'not a WAV or MP3 file');
  }
  const h0 = (await confirmedFrame(win, first)) as Mp3FrameHeader;
  if (!win.has(first, h0.frameBytes)) await win.load(first, Math.min(h0.frameBytes, win.size - first));
  const info = readHeaderFrame(win.view(first, h0.frameBytes), h0);

  let frames = 0;
  let pos = first;
  let audioEnd = first;
  while (pos + 4 <= win.size) {
    if (!win.has(pos, 4)) await win.load(pos, 4);
    const h = parseMp3Header(win.byte(pos), win.byte(pos + 1), win.byte(pos + 2), win.byte(pos + 3));
    if (h && sameStream(h, h0)) {
      if (pos + h.frameBytes > win.size) break; // a cut-off last frame is not decoded either
      frames++;
      pos += h.frameBytes;
      audioEnd = pos;
      continue;
    }
    const next = await syncFrom(win, pos + 1, win.size);
    if (next < 0) break;
    pos = next;
  }
  const audioFrames = info ? frames - 1 : frames;
  const delay = info?.delay ?? 0;
  const padding = info?.padding ?? 0;
  const totalSamples = Math.max(0, audioFrames * h0.samplesPerFrame - gaplessTrim(info));
  return {
    firstFrame: first,
    version: h0.version,
    layer: h0.layer,
    sampleRate: h0.sampleRate,
    infoHeader: info?.tag,
    decoderStart: info && !info.gapless ? first + h0.frameBytes : first,
    audioEnd,
    audioFrames,
    samplesPerFrame: h0.samplesPerFrame,
    encoderDelay: delay,
    encoderPadding: padding,
    totalSamples,
  };
}

/** `scanMp3` on a file by name, for callers that hold no handle of their own. */
export async function scanMp3File(path: string): Promise<Mp3Scan> {
  const { handle, stats } = await openRegularFile(path);
  try {
    return await scanMp3(new FileWindow(handle, stats.size));
  } finally {
    await handle.close();
  }
}
