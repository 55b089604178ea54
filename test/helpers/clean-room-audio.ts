/**
 * The clean-room service's audio stub: it measures an upload (WAV or MP3) and
 * answers a "redacted" WAV of the same duration. It does no redaction; the
 * answer is silence, so a test can tell the service's bytes from the source's.
 */

export interface PcmFormat {
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
}

export interface MeasuredAudio {
  durationSeconds: number;
  format: PcmFormat;
}

const TELEPHONE_FORMAT: PcmFormat = { channels: 1, sampleRate: 16_000, bitsPerSample: 16 };

/** Duration and PCM format of a WAV or MP3 upload, or undefined when it is neither. */
export function measureAudio(bytes: Buffer): MeasuredAudio | undefined {
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF') return measureWav(bytes);
  const durationSeconds = measureMp3(bytes);
  return durationSeconds === undefined ? undefined : { durationSeconds, format: TELEPHONE_FORMAT };
}

function measureWav(bytes: Buffer): MeasuredAudio | undefined {
  if (bytes.subarray(8, 12).toString('latin1') !== 'WAVE') return undefined;
  let format: PcmFormat | undefined;
  let byteRate = 0;
  for (let at = 12; at + 8 <= bytes.length;) {
    const id = bytes.subarray(at, at + 4).toString('latin1');
    const size = bytes.readUInt32LE(at + 4);
    if (id === 'fmt ' && at + 24 <= bytes.length) {
      format = {
        channels: bytes.readUInt16LE(at + 10),
        sampleRate: bytes.readUInt32LE(at + 12),
        bitsPerSample: bytes.readUInt16LE(at + 22),
      };
      byteRate = bytes.readUInt32LE(at + 16);
    }
    if (id === 'data' && format && byteRate > 0) {
      const available = Math.min(size, bytes.length - at - 8);
      return { durationSeconds: available / byteRate, format };
    }
    at += 8 + size + (size % 2);
  }
  return undefined;
}

const LAYER3_KBPS = {
  mpeg1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  mpeg2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const SAMPLE_RATES: Record<number, number[]> = {
  3: [44_100, 48_000, 32_000],
  2: [22_050, 24_000, 16_000],
  0: [11_025, 12_000, 8_000],
};

/** From the first Layer III frame: the Xing frame count when there is one, else a constant-bit-rate estimate. */
function measureMp3(bytes: Buffer): number | undefined {
  let at = 0;
  if (bytes.subarray(0, 3).toString('latin1') === 'ID3' && bytes.length >= 10) {
    at =
      10 +
      (((bytes[6]! & 0x7f) << 21) |
        ((bytes[7]! & 0x7f) << 14) |
        ((bytes[8]! & 0x7f) << 7) |
        (bytes[9]! & 0x7f));
  }
  for (; at + 4 <= bytes.length; at++) {
    if (bytes[at] !== 0xff || (bytes[at + 1]! & 0xe6) !== 0xe2) continue;
    const version = (bytes[at + 1]! >> 3) & 0x03;
    const mpeg1 = version === 3;
    const kbps = (mpeg1 ? LAYER3_KBPS.mpeg1 : LAYER3_KBPS.mpeg2)[bytes[at + 2]! >> 4];
    const rate = SAMPLE_RATES[version]?.[(bytes[at + 2]! >> 2) & 0x03];
    if (!kbps || !rate) continue;
    const mono = bytes[at + 3]! >> 6 === 3;
    const tagAt = at + 4 + (mpeg1 ? (mono ? 17 : 32) : mono ? 9 : 17);
    const frames = xingFrameCount(bytes, tagAt);
    return frames === undefined
      ? ((bytes.length - at) * 8) / (kbps * 1000)
      : (frames * (mpeg1 ? 1152 : 576)) / rate;
  }
  return undefined;
}

/** The frame count of a Xing/Info header, which a VBR file needs to be measured. */
function xingFrameCount(bytes: Buffer, tagAt: number): number | undefined {
  const tag = bytes.subarray(tagAt, tagAt + 4).toString('latin1');
  if ((tag !== 'Xing' && tag !== 'Info') || tagAt + 12 > bytes.length) return undefined;
  return (bytes.readUInt32BE(tagAt + 4) & 1) === 1 ? bytes.readUInt32BE(tagAt + 8) : undefined;
}

/** A silent PCM WAV of the given duration, with an extra LIST chunk before the data, as real encoders write. */
export function silentWav(durationSeconds: number, format: PcmFormat = TELEPHONE_FORMAT): Buffer {
  const blockAlign = format.channels * (format.bitsPerSample / 8);
  const frames = Math.round(durationSeconds * format.sampleRate);
  const dataSize = frames * blockAlign;
  const list = Buffer.from('LIST\x0c\x00\x00\x00INFOISFT\x00\x00\x00\x00', 'latin1');
  const header = Buffer.alloc(36);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(4 + 24 + list.length + 8 + dataSize, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(format.channels, 22);
  header.writeUInt32LE(format.sampleRate, 24);
  header.writeUInt32LE(format.sampleRate * blockAlign, 28);
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(format.bitsPerSample, 34);
  const dataHeader = Buffer.alloc(8);
  dataHeader.write('data', 0, 'latin1');
  dataHeader.writeUInt32LE(dataSize, 4);
  return Buffer.concat([header, list, dataHeader, Buffer.alloc(dataSize)]);
}
