/**
 * Odd but real recordings, built from the speech fixtures: the WAV and MP3 layouts that recorders,
 * phone systems and converters write (EXTENSIBLE headers, 24-bit and float samples, chunks before
 * `fmt `, streaming sizes, RF64, tags at both ends of an MP3, junk before its first frame…), and a
 * few that are not usable. Every file is made by code, a few hundred kilobytes at most.
 */
import { readFile } from 'node:fs/promises';
import { chunk, riff } from './signal.js';
import { FIXTURES } from './cli.js';
import { makeMp3 } from './mp3.js';
import { join } from 'node:path';

/** The speech fixture's samples: 16 kHz mono, about 7 s. */
export async function speechSamples(): Promise<{ samples: Int16Array; rate: number }> {
  const bytes = await readFile(join(FIXTURES, 'speech-16bit.wav'));
  const at = bytes.indexOf('data') + 8;
  const size = bytes.readUInt32LE(at - 4);
  const copy = Buffer.from(bytes.subarray(at, at + size));
  return { samples: new Int16Array(copy.buffer, copy.byteOffset, size / 2), rate: 16_000 };
}

export interface FmtFields {
  tag: number;
  channels: number;
  rate: number;
  bits: number;
  block: number;
  /** WAVE_FORMAT_EXTENSIBLE: the sub-format's classic tag (1 PCM, 3 float). */
  subFormat?: number;
  /** EXTENSIBLE's valid bits per sample (default `bits`). */
  validBits?: number;
}

/** A `fmt ` chunk's body: 16 bytes, or 40 for WAVE_FORMAT_EXTENSIBLE. */
export function fmtBody(f: FmtFields): Buffer {
  const body = Buffer.alloc(f.subFormat === undefined ? 16 : 40);
  body.writeUInt16LE(f.subFormat === undefined ? f.tag : 0xfffe, 0);
  body.writeUInt16LE(f.channels, 2);
  body.writeUInt32LE(f.rate, 4);
  body.writeUInt32LE(f.rate * f.block, 8);
  body.writeUInt16LE(f.block, 12);
  body.writeUInt16LE(f.bits, 14);
  if (f.subFormat !== undefined) {
    body.writeUInt16LE(22, 16);
    body.writeUInt16LE(f.validBits ?? f.bits, 18);
    body.writeUInt32LE(f.channels === 1 ? 0x4 : 0x3, 20);
    // KSDATAFORMAT_SUBTYPE_*: the classic tag, then the GUID's fixed tail.
    body.writeUInt16LE(f.subFormat, 24);
    Buffer.from('000000001000800000aa00389b71', 'hex').copy(body, 26);
  }
  return body;
}

/** Samples as one channel's PCM of `bytes` bytes (1: unsigned 8-bit), or as 32-bit float. */
export function encodeSamples(samples: Int16Array, as: 'pcm8' | 'pcm16' | 'pcm24' | 'pcm32' | 'float32') {
  const width = { pcm8: 1, pcm16: 2, pcm24: 3, pcm32: 4, float32: 4 }[as];
  const out = Buffer.alloc(samples.length * width);
  samples.forEach((s, i) => {
    const at = i * width;
    if (as === 'pcm8') out[at] = (s >> 8) + 128;
    else if (as === 'pcm16') out.writeInt16LE(s, at);
    else if (as === 'pcm24') out.writeIntLE(s * 256, at, 3);
    else if (as === 'pcm32') out.writeInt32LE(s * 65536, at);
    else out.writeFloatLE(s / 32768, at);
  });
  return out;
}

/** Interleaves mono bytes into `channels` identical channels of `width` bytes a sample. */
export function interleave(mono: Buffer, width: number, channels: number): Buffer {
  const frames = mono.length / width;
  const out = Buffer.alloc(mono.length * channels);
  for (let f = 0; f < frames; f++) {
    for (let c = 0; c < channels; c++) mono.copy(out, (f * channels + c) * width, f * width, (f + 1) * width);
  }
  return out;
}

/** A `data` chunk header declaring `size` bytes, whatever follows it (streaming, cut short). */
export function dataHeader(size: number): Buffer {
  const header = Buffer.alloc(8);
  header.write('data', 0, 'latin1');
  header.writeUInt32LE(size, 4);
  return header;
}

/** A `bext` chunk (Broadcast WAV): 602 bytes of description, originator and times. */
export function bextChunk(): Buffer {
  const body = Buffer.alloc(602);
  body.write('call 2026-11-21 02:00 line 4', 0, 'latin1');
  body.write('PBX recorder', 256, 'latin1');
  return chunk('bext', body);
}

/** A `LIST`/`INFO` chunk of odd size (its pad byte follows it). */
export function listInfoChunk(): Buffer {
  const name = Buffer.from('odd call\0', 'latin1'); // 9 bytes: INAM is odd-sized
  const inam = Buffer.concat([Buffer.from('INAM', 'latin1'), Buffer.alloc(4), name, Buffer.alloc(1)]);
  inam.writeUInt32LE(name.length, 4);
  return chunk('LIST', Buffer.concat([Buffer.from('INFO', 'latin1'), inam, Buffer.from('X', 'latin1')]));
}

/** An RF64 file (EBU Tech 3306): `ds64` holds the sizes; RIFF and data say 0xFFFFFFFF. */
export function rf64(fmt: Buffer, data: Buffer): Buffer {
  const ds64 = Buffer.alloc(28);
  const total = 4 + (8 + 28) + (8 + fmt.length) + 8 + data.length;
  ds64.writeBigUInt64LE(BigInt(total), 0);
  ds64.writeBigUInt64LE(BigInt(data.length), 8);
  ds64.writeBigUInt64LE(BigInt(data.length / 2), 16);
  const file = riff([chunk('ds64', ds64), chunk('fmt ', fmt), dataHeader(0xffffffff), data]);
  file.write('RF64', 0, 'latin1');
  file.writeUInt32LE(0xffffffff, 4);
  return file;
}

/** An ID3v2.4 tag of `payload` bytes, with its footer when asked (then it may end a file too). */
export function id3v2Tag(payload: Buffer, footer = false): Buffer {
  const header = Buffer.alloc(10);
  header.write('ID3', 0, 'latin1');
  header[3] = 4;
  header[5] = footer ? 0x10 : 0;
  const size = payload.length;
  [21, 14, 7, 0].forEach((shift, i) => (header[6 + i] = (size >> shift) & 0x7f));
  if (!footer) return Buffer.concat([header, payload]);
  const tail = Buffer.from(header);
  tail.write('3DI', 0, 'latin1');
  return Buffer.concat([header, payload, tail]);
}

/** An ID3v2 frame (v2.4: a sync-safe size). */
function id3Frame(id: string, body: Buffer): Buffer {
  const header = Buffer.alloc(10);
  header.write(id, 0, 'latin1');
  [21, 14, 7, 0].forEach((shift, i) => (header[4 + i] = (body.length >> shift) & 0x7f));
  return Buffer.concat([header, body]);
}

/**
 * A title and, when asked, an attached picture of `pictureBytes`: a JPEG's bytes are full of 0xFF
 * 0xFB-like pairs, the false frame syncs a tag reader must not fall for.
 */
export function id3v2Payload(pictureBytes = 0): Buffer {
  const frames = [id3Frame('TIT2', Buffer.from('\x03call 4711\0', 'latin1'))];
  if (pictureBytes > 0) {
    const jpeg = Buffer.alloc(pictureBytes);
    for (let i = 0; i < jpeg.length; i++) jpeg[i] = i % 7 === 0 ? 0xff : (i * 131 + 0xe3) & 0xff;
    jpeg.set([0xff, 0xd8, 0xff, 0xe0]);
    const head = Buffer.from('\x00image/jpeg\0\x03cover\0', 'latin1');
    frames.push(id3Frame('APIC', Buffer.concat([head, jpeg])));
  }
  return Buffer.concat([...frames, Buffer.alloc(256)]); // padding, as taggers leave it
}

/** An APEv2 tag (header, one item, footer), as foobar2000 and mp3gain append it. */
export function apeTag(): Buffer {
  const value = Buffer.from('call 4711', 'latin1');
  const item = Buffer.concat([Buffer.alloc(8), Buffer.from('Title\0', 'latin1'), value]);
  item.writeUInt32LE(value.length, 0);
  const block = (isHeader: boolean) => {
    const b = Buffer.alloc(32);
    b.write('APETAGEX', 0, 'latin1');
    b.writeUInt32LE(2000, 8);
    b.writeUInt32LE(item.length + 32, 12);
    b.writeUInt32LE(1, 16);
    b.writeUInt32LE(isHeader ? 0xa0000000 : 0x80000000, 20);
    return b;
  };
  return Buffer.concat([block(true), item, block(false)]);
}

/** An ID3v1 tag: `TAG` and 125 bytes, the last thing in the file. */
export function id3v1Tag(): Buffer {
  const tag = Buffer.alloc(128);
  tag.write('TAGcall 4711', 0, 'latin1');
  return tag;
}

export { chunk, riff };

/** Leading and trailing pieces of an MP3 fixture: its frames with other bytes around them. */
async function mp3Fixture(name: string): Promise<Buffer> {
  return readFile(join(FIXTURES, name));
}

/**
 * The odd recordings by file name. Those whose name starts with `bad-` are not usable; every other
 * one is a recording a user expects to be redacted.
 */
export async function oddRecordings(): Promise<Record<string, Buffer>> {
  const { samples, rate } = await speechSamples();
  const pcm16 = encodeSamples(samples, 'pcm16');
  const mono16 = fmtBody({ tag: 1, channels: 1, rate, bits: 16, block: 2 });
  const wav = (...chunks: Buffer[]) => riff(chunks);
  const data16 = chunk('data', pcm16);
  const cbr = await mp3Fixture('speech-cbr.mp3');
  const vbr = await mp3Fixture('speech-vbr-xing.mp3');
  const noXing = await mp3Fixture('speech-vbr-noxing.mp3');
  const ulaw = await readFile(join(FIXTURES, 'speech-8k-ulaw.wav'));
  const oddSamples = encodeSamples(samples.subarray(0, samples.length - 1), 'pcm8');
  const cut = wav(chunk('fmt ', mono16), data16);
  return {
    'extensible-pcm16.wav': wav(
      chunk('fmt ', fmtBody({ tag: 1, channels: 1, rate, bits: 16, block: 2, subFormat: 1 })),
      data16,
    ),
    'extensible-float32-stereo.wav': wav(
      chunk('fmt ', fmtBody({ tag: 3, channels: 2, rate, bits: 32, block: 8, subFormat: 3 })),
      chunk('data', interleave(encodeSamples(samples, 'float32'), 4, 2)),
    ),
    'extensible-pcm24-in-32.wav': wav(
      chunk('fmt ', fmtBody({ tag: 1, channels: 1, rate, bits: 32, block: 4, subFormat: 1, validBits: 24 })),
      chunk('data', encodeSamples(samples, 'pcm32')),
    ),
    'pcm8.wav': wav(
      chunk('fmt ', fmtBody({ tag: 1, channels: 1, rate, bits: 8, block: 1 })),
      chunk('data', encodeSamples(samples, 'pcm8')),
    ),
    'pcm24.wav': wav(
      chunk('fmt ', fmtBody({ tag: 1, channels: 1, rate, bits: 24, block: 3 })),
      chunk('data', encodeSamples(samples, 'pcm24')),
    ),
    'float32.wav': wav(
      chunk('fmt ', fmtBody({ tag: 3, channels: 1, rate, bits: 32, block: 4 })),
      chunk('data', encodeSamples(samples, 'float32')),
    ),
    'mulaw-8k.wav': ulaw,
    'alaw-8k.wav': await readFile(join(FIXTURES, 'speech-8k-alaw.wav')),
    'odd-chunks-padded.wav': wav(
      listInfoChunk(),
      chunk('fmt ', fmtBody({ tag: 1, channels: 1, rate, bits: 8, block: 1 })),
      chunk('data', oddSamples),
      listInfoChunk(),
    ),
    'bext-before-fmt.wav': wav(bextChunk(), chunk('fmt ', mono16), data16),
    'streaming-size.wav': wav(chunk('fmt ', mono16), dataHeader(0xffffffff), pcm16),
    'rf64.wav': rf64(mono16, pcm16),
    'trailing-garbage.wav': Buffer.concat([
      wav(chunk('fmt ', mono16), data16),
      Buffer.from('\x00\xffgarbage after the audio', 'latin1'),
    ]),
    'cut-short.wav': cut.subarray(0, cut.length - pcm16.length / 2),
    'bad-data-before-fmt.wav': wav(data16, chunk('fmt ', mono16)),
    'bad-ima-adpcm.wav': wav(
      chunk(
        'fmt ',
        Buffer.concat([
          fmtBody({ tag: 0x11, channels: 1, rate: 8000, bits: 4, block: 256 }),
          Buffer.from([2, 0, 0xf9, 0x01]),
        ]),
      ),
      chunk('fact', Buffer.from([0x40, 0x1f, 0, 0])),
      chunk('data', Buffer.alloc(4096, 0x21)),
    ),
    'id3v2-big.mp3': Buffer.concat([id3v2Tag(id3v2Payload()), Buffer.alloc(0), cbr]),
    'id3v2-picture.mp3': Buffer.concat([id3v2Tag(id3v2Payload(300_000)), cbr]),
    'id3v2-footer.mp3': Buffer.concat([id3v2Tag(id3v2Payload(20_000), true), vbr]),
    'id3v2-appended.mp3': Buffer.concat([cbr, id3v2Tag(id3v2Payload(20_000), true)]),
    'id3v1.mp3': Buffer.concat([cbr, id3v1Tag()]),
    'ape-and-id3v1.mp3': Buffer.concat([vbr, apeTag(), id3v1Tag()]),
    'cbr-info.mp3': cbr,
    'vbr-xing.mp3': vbr,
    'vbr-no-header.mp3': noXing,
    'mpeg25-8k.mp3': await mp3Fixture('speech-mpeg25.mp3'),
    'mpeg2-16k.mp3': await mp3Fixture('speech-mpeg2.mp3'),
    'stereo-44k.mp3': makeMp3({
      frames: 150,
      version: 1,
      sampleRate: 44100,
      bitrate: 64,
      stereo: true,
      infoHeader: 'Info',
    }),
    'vbri-44k.mp3': makeMp3({ frames: 150, version: 1, sampleRate: 44100, bitrate: 64, infoHeader: 'VBRI' }),
    // A crashed writer's garbage, holding what reads as two frames at another rate (12 kHz).
    'garbage-after-frames.mp3': Buffer.concat([
      await mp3Fixture('speech-mpeg25.mp3'),
      Buffer.alloc(37, 0x55),
      makeMp3({ frames: 2, sampleRate: 12000 }),
      Buffer.alloc(300, 0x5a),
    ]),
    // Calls under 150 ms: too few frames for music-metadata to sync on.
    'one-frame.mp3': makeMp3({ frames: 1 }),
    'two-frames-tagged.mp3': makeMp3({ frames: 2, id3v2Bytes: 100 }),
    'junk-before-frame.mp3': Buffer.concat([Buffer.from([0, 0, 0x0a, 0x0d]), noXing]),
    'really-a-wav.mp3': ulaw,
    'really-an-mp3.wav': cbr,
    'UPPER.WAV': wav(chunk('fmt ', mono16), data16),
    'LOUD.MP3': vbr,
  };
}
