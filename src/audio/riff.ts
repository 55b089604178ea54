/**
 * The one home of the RIFF/WAVE header rules: `RIFF` <size> `WAVE`, then chunks (`id`, little-endian
 * size, body padded to an even length), a `fmt ` chunk before the `data` chunk. RF64 (EBU Tech 3306,
 * which some recorders write whatever the length) is the same with `RF64`, and a `ds64` chunk that
 * holds the data chunk's 64-bit size where its own size field says 0xFFFFFFFF. Read incrementally,
 * chunk by chunk of a stream, so that a whole file is never held: used by the local checks of an
 * input and by the verification of a result as it is written.
 */
import { fmtEncoding, sampleBytes } from './wav-layout.js';

export interface WavFormat {
  audioFormat: number;
  channels: number;
  sampleRate: number;
  blockAlign: number;
  bitsPerSample: number;
}

export interface WavSummary {
  format: WavFormat;
  /** Bytes the `data` chunk declares. */
  declaredDataBytes: number;
  /** Bytes of the `data` chunk actually present. */
  dataBytes: number;
  /** Every byte read. */
  totalBytes: number;
  /** Seconds of audio in the data present (and declared). */
  durationSec: number;
  /** Fewer bytes of audio present than the data chunk declares (a lax reader's input only). */
  cutShort: boolean;
}

/**
 * Why a byte stream is not a usable WAV file. `unsupportedSamples`: its samples are in a layout
 * vredact does not take (see wav-layout.ts); what to do about it is the caller's to say.
 */
export class WavFormatError extends Error {
  override name = 'WavFormatError';

  constructor(
    message: string,
    readonly unsupportedSamples = false,
  ) {
    super(message);
  }
}

/**
 * Bytes that do not even begin as a WAV file (no RIFF/WAVE header in the first 12): text, a page, an
 * MP3. Told apart from a WAV that is damaged, as no redaction of the service looks like it.
 */
export class NotWavError extends WavFormatError {
  override name = 'NotWavError';
}

/** Whether the first bytes are a RIFF/WAVE (or RF64/WAVE) header. */
export function isRiffWave(head: Uint8Array): boolean {
  const bytes = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  const id = bytes.toString('latin1', 0, 4);
  return bytes.length >= 12 && (id === 'RIFF' || id === 'RF64') && bytes.toString('latin1', 8, 12) === 'WAVE';
}

/** Whether bytes too few for a header are the start of a RIFF/WAVE (or RF64/WAVE) header. */
function couldBeginWav(head: Buffer): boolean {
  const text = head.toString('latin1');
  return (
    ['RIFF', 'RF64'].some((id) => (text.length <= 4 ? id.startsWith(text) : text.startsWith(id))) &&
    (text.length <= 8 || 'WAVE'.startsWith(text.slice(8)))
  );
}

/** Whether a RIFF/WAVE header is RF64's. */
export function isRf64(head: Uint8Array): boolean {
  return isRiffWave(head) && Buffer.from(head.buffer, head.byteOffset, 4).toString('latin1') === 'RF64';
}

/**
 * The data chunk's size an RF64 file's `ds64` chunk body holds (a 64-bit value after the RIFF size),
 * or undefined when the body is too short to hold it.
 */
export function ds64DataBytes(body: Uint8Array): number | undefined {
  if (body.length < 16) return undefined;
  return Number(new DataView(body.buffer, body.byteOffset, body.byteLength).getBigUint64(8, true));
}

/** A `fmt ` (or `ds64`) chunk is small: anything larger is not one. */
const MAX_FMT_BYTES = 1024;
/**
 * Whether a RIFF or data chunk size declares a length: 0xFFFFFFFF (or 0) is written by streaming
 * encoders that never knew the length, and declares nothing.
 */
export function declaresLength(size: number): boolean {
  return size !== 0 && size !== 0xffffffff;
}

type State =
  | { kind: 'riff' }
  | { kind: 'chunk-header' }
  | { kind: 'fmt'; size: number; pad: number }
  | { kind: 'ds64'; size: number; pad: number }
  | { kind: 'skip'; remaining: number }
  | { kind: 'data'; remaining: number }
  | { kind: 'after-data' };

/**
 * Reads a WAV stream incrementally. `push` each chunk of bytes; `finish` at the end. `strict` (a
 * result from the service) requires every declared data byte; otherwise (an input) the audio present
 * counts. Once the data chunk's header is read, `onData` is told its declared duration and bytes, so
 * a caller can refuse an answer early.
 */
export class WavReader {
  #state: State = { kind: 'riff' };
  #pending: Buffer = Buffer.alloc(0);
  #format: WavFormat | undefined;
  #declared = -1;
  #rf64 = false;
  /** The data chunk's size as RF64's `ds64` chunk gives it. */
  #ds64Data: number | undefined;
  #dataBytes = 0;
  #total = 0;

  constructor(
    private readonly options: {
      strict: boolean;
      onData?: (declaredSec: number, declaredBytes: number) => void;
    } = { strict: true },
  ) {}

  get totalBytes(): number {
    return this.#total;
  }

  /** The format, once the `fmt ` chunk has been read. */
  get format(): WavFormat | undefined {
    return this.#format;
  }

  push(chunk: Uint8Array): void {
    this.#total += chunk.byteLength;
    let bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.#pending.length > 0) {
      bytes = Buffer.concat([this.#pending, bytes]);
      this.#pending = Buffer.alloc(0);
    }
    let offset = 0;
    while (offset < bytes.length) {
      const used = this.#step(bytes, offset);
      if (used < 0) {
        // Not enough bytes for the header being read: keep them (a few bytes, or a small fmt chunk).
        this.#pending = Buffer.from(bytes.subarray(offset));
        return;
      }
      offset += used;
    }
  }

  /** Bytes consumed from `bytes` at `offset`, or -1 when more are needed. */
  #step(bytes: Buffer, offset: number): number {
    const available = bytes.length - offset;
    const state = this.#state;
    switch (state.kind) {
      case 'riff': {
        if (available < 12) return -1;
        if (!isRiffWave(bytes.subarray(offset, offset + 12)))
          throw new NotWavError('not a WAV file (no RIFF/WAVE header)');
        this.#rf64 = isRf64(bytes.subarray(offset, offset + 12));
        this.#state = { kind: 'chunk-header' };
        return 12;
      }
      case 'chunk-header': {
        if (available < 8) return -1;
        const id = bytes.toString('latin1', offset, offset + 4);
        const size = bytes.readUInt32LE(offset + 4);
        const pad = size % 2;
        if (id === 'fmt ') {
          if (size < 16 || size > MAX_FMT_BYTES)
            throw new WavFormatError(`a WAV file with a ${size}-byte fmt chunk`);
          this.#state = { kind: 'fmt', size, pad };
        } else if (id === 'ds64' && this.#rf64 && size <= MAX_FMT_BYTES) {
          this.#state = { kind: 'ds64', size, pad };
        } else if (id === 'data') {
          if (!this.#format)
            throw new WavFormatError('a WAV file whose data chunk comes before its fmt chunk');
          const declared = size === 0xffffffff && this.#ds64Data !== undefined ? this.#ds64Data : size;
          this.#declared = declared;
          const known = declaresLength(declared);
          this.#state = { kind: 'data', remaining: known ? declared : Infinity };
          this.options.onData?.(known ? this.#seconds(declared) : Infinity, known ? declared : Infinity);
        } else {
          this.#state = { kind: 'skip', remaining: size + pad };
        }
        return 8;
      }
      case 'fmt': {
        if (available < state.size) return -1;
        this.#format = readFormat(bytes.subarray(offset, offset + state.size));
        this.#state = state.pad ? { kind: 'skip', remaining: 1 } : { kind: 'chunk-header' };
        return state.size;
      }
      case 'ds64': {
        if (available < state.size) return -1;
        this.#ds64Data = ds64DataBytes(bytes.subarray(offset, offset + state.size));
        this.#state = state.pad ? { kind: 'skip', remaining: 1 } : { kind: 'chunk-header' };
        return state.size;
      }
      case 'skip': {
        const used = Math.min(available, state.remaining);
        state.remaining -= used;
        if (state.remaining === 0) this.#state = { kind: 'chunk-header' };
        return used;
      }
      case 'data': {
        const used = Math.min(available, state.remaining);
        this.#dataBytes += used;
        state.remaining -= used;
        if (state.remaining === 0) this.#state = { kind: 'after-data' };
        return used;
      }
      case 'after-data':
        // Chunks after the audio (LIST, id3): counted, not read.
        return available;
    }
  }

  #seconds(bytes: number): number {
    const format = this.#format as WavFormat;
    return Math.floor(bytes / format.blockAlign) / format.sampleRate;
  }

  #cutShort(): boolean {
    return declaresLength(this.#declared) && this.#dataBytes < this.#declared;
  }

  /** Ends the stream; throws WavFormatError when it is not a whole, usable WAV file. */
  finish(): WavSummary {
    if (this.#state.kind === 'riff') {
      // Fewer than 12 bytes: a WAV's beginning cut short is still a damaged WAV; anything else is none.
      const NoHeader = couldBeginWav(this.#pending) ? WavFormatError : NotWavError;
      throw new NoHeader('not a WAV file (no RIFF/WAVE header)');
    }
    if (!this.#format) throw new WavFormatError('not a readable WAV file (no fmt chunk)');
    if (this.#declared < 0) throw new WavFormatError('not a readable WAV file (no data chunk)');
    if (this.options.strict && this.#cutShort()) {
      throw new WavFormatError(
        `a WAV file cut short: ${this.#dataBytes} of the ${this.#declared} bytes of audio it declares`,
      );
    }
    const durationSec = this.#seconds(this.#dataBytes);
    return {
      cutShort: this.#cutShort(),
      format: this.#format,
      declaredDataBytes: this.#declared,
      dataBytes: this.#dataBytes,
      totalBytes: this.#total,
      durationSec,
    };
  }
}

function readFormat(body: Buffer): WavFormat {
  const format: WavFormat = {
    audioFormat: body.readUInt16LE(0),
    channels: body.readUInt16LE(2),
    sampleRate: body.readUInt32LE(4),
    blockAlign: body.readUInt16LE(12),
    bitsPerSample: body.readUInt16LE(14),
  };
  if (format.channels < 1 || format.sampleRate < 1 || format.blockAlign < 1) {
    throw new WavFormatError(
      `a WAV file with an impossible format (${format.channels} channel(s), ${format.sampleRate} Hz, block ${format.blockAlign})`,
    );
  }
  // A layout whose duration cannot be told from its size (ADPCM, MP3 in a WAV…) is refused here,
  // by the rules the sandbox decodes by, rather than measured wrong and refused by the service.
  const declared = fmtEncoding(body);
  const layout = 'problem' in declared ? declared : sampleBytes({ ...format, encoding: declared.encoding });
  if ('problem' in layout)
    throw new WavFormatError(`a WAV file with ${layout.problem}`, layout.unsupportedSamples === true);
  return format;
}
