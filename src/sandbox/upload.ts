/**
 * Receives the multipart body of a redaction request with busboy: text fields into a map, the
 * `source_audio` part streamed to a temporary file (hashed on the way), never held in memory.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { MAX_UPLOAD_BYTES } from './limits.js';

export interface ReceivedFile {
  /** The temporary file holding the bytes; the caller owns it. */
  path: string;
  /** The file name as the client sent it (not reduced to a base name). */
  name: string;
  size: number;
  /** Hex SHA-256 of the bytes. */
  sha256: string;
}

export type UploadOutcome =
  | { kind: 'received'; fields: Map<string, string>; file: ReceivedFile | undefined }
  /** An answer to give now; the rest of the body is not read (the caller discards it). */
  | { kind: 'refused'; status: number; message: string }
  /** The client went away before the body was whole. */
  | { kind: 'aborted' };

export interface UploadHooks {
  /** A temporary path for the file part. */
  tmpPath: () => string;
  /** The `source_audio` part started to arrive. */
  onFileStart?: () => void;
  onBytes?: (n: number) => void;
}

const FILE_FIELD = 'source_audio';
const NOT_A_FILE =
  `"${FILE_FIELD}" must be a file part, with a file name (filename="call.wav") or of type ` +
  'application/octet-stream; it came as a text field';

export function receiveUpload(req: IncomingMessage, hooks: UploadHooks): Promise<UploadOutcome> {
  return new Promise((resolve) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        preservePath: true,
        defParamCharset: 'utf8',
        // busboy reports the limit when the part reaches exactly `fileSize` bytes: one more byte
        // than allowed, so a file of exactly MAX_UPLOAD_BYTES is accepted.
        limits: { fileSize: MAX_UPLOAD_BYTES + 1, fieldSize: 1024, fields: 32, files: 4, parts: 40 },
      });
    } catch {
      resolve({ kind: 'refused', status: 400, message: 'the body must be multipart/form-data' });
      return;
    }

    const fields = new Map<string, string>();
    let problem: string | undefined;
    let file: ReceivedFile | undefined;
    let fileStream: (NodeJS.ReadableStream & { destroy(error?: Error): void }) | undefined;
    let written: Promise<void> = Promise.resolve();
    let settled = false;

    const removeTemp = () => {
      const path = file?.path;
      if (path) void written.catch(() => {}).then(() => rm(path, { force: true }));
    };
    const settle = (outcome: UploadOutcome) => {
      if (settled) return;
      settled = true;
      if (outcome.kind !== 'received') {
        req.unpipe(parser);
        // With an error: a part whose end was already parsed (a file just over the limit) destroyed
        // without one leaves the pipeline waiting for an 'end' that never comes, and its file behind.
        fileStream?.destroy(new Error('the upload was refused or abandoned'));
        removeTemp();
      }
      resolve(outcome);
    };
    const note = (message: string) => {
      problem ??= message;
    };

    parser.on('field', (name, value, info) => {
      // A part without a file name (filename="" counts as none) and not of type octet-stream is a
      // text field to multipart: the file cannot be read from it (its value is cut at 1 KiB).
      if (name === FILE_FIELD) note(NOT_A_FILE);
      else if (info.nameTruncated || info.valueTruncated) note(`field "${name.slice(0, 40)}" is too long`);
      else if (fields.has(name)) note(`field "${name}" is given more than once`);
      else fields.set(name, value);
    });

    parser.on('file', (name, stream, info) => {
      if (name !== FILE_FIELD || file) {
        if (name === FILE_FIELD) note(`only one "${FILE_FIELD}" file may be sent`);
        stream.resume();
        return;
      }
      hooks.onFileStart?.();
      const hash = createHash('sha256');
      const received: ReceivedFile = {
        path: hooks.tmpPath(),
        name: info.filename ?? '',
        size: 0,
        sha256: '',
      };
      file = received;
      fileStream = stream;
      stream.on('limit', () =>
        settle({
          kind: 'refused',
          status: 413,
          message: `the file is larger than the 10 MB limit (${MAX_UPLOAD_BYTES} bytes)`,
        }),
      );
      const meter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          received.size += chunk.length;
          hash.update(chunk);
          hooks.onBytes?.(chunk.length);
          callback(null, chunk);
        },
      });
      written = pipeline(stream, meter, createWriteStream(received.path)).then(() => {
        received.sha256 = hash.digest('hex');
      });
      written.catch(() => {});
    });

    parser.on('filesLimit', () => note('too many files in the form'));
    parser.on('fieldsLimit', () => note('too many fields in the form'));
    parser.on('partsLimit', () => note('too many parts in the form'));
    parser.on('error', (error: Error) =>
      settle({
        kind: 'refused',
        status: 400,
        message: `the multipart body could not be read: ${error.message}`,
      }),
    );
    parser.on('close', () => {
      written.then(
        () => {
          if (problem) settle({ kind: 'refused', status: 400, message: problem });
          else settle({ kind: 'received', fields, file });
        },
        (error: Error) =>
          settle({
            kind: 'refused',
            status: 500,
            message: `the upload could not be stored: ${error.message}`,
          }),
      );
    });

    req.on('close', () => {
      if (!req.complete) settle({ kind: 'aborted' });
    });
    req.pipe(parser);
  });
}
