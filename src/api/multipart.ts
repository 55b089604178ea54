/**
 * The redaction upload's multipart/form-data body, written by hand. undici's FormData with a file
 * Blob goes through web streams, Blob readers and transferables: at a few hundred uploads a second
 * that costs more client CPU than everything else per file. Here the body is the text fields and
 * the file's head as one buffer, the file's bytes, and the closing boundary, with its exact length
 * announced (no chunked encoding). Small files are read whole: one read instead of a stream.
 */
import { createHash } from 'node:crypto';
import { randomHex } from '../random-hex.js';
import { openRegularFile } from '../fs/regular-file.js';
import { Readable } from 'node:stream';

/** Files up to this size are read into memory whole (at -c 64, 64 of them at most: 16 MiB). */
const READ_WHOLE_LIMIT = 256 * 1024;

export interface MultipartBody {
  contentType: string;
  contentLength: number;
  /** The file's bytes in it: what an answer refusing the upload as too large refused. */
  fileBytes: number;
  body: Buffer | Readable;
}

/** Quotes a name as browsers and undici do: `"`, CR and LF percent-encoded. */
function quoted(name: string): string {
  return `"${name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}"`;
}

/**
 * The body of a form of `fields` and one file part `fileField` holding the file at `path`, named
 * `fileName`. With `bytes` (the file as the caller already read it) the file is not read again;
 * otherwise it is opened now, so a missing or unreadable file fails here, before any request, and
 * `onFileRead` is told the SHA-256 of the file's bytes once every one of them is in the body.
 */
export async function multipartWithFile(
  fields: Readonly<Record<string, string>>,
  fileField: string,
  path: string,
  fileName: string,
  type: string,
  bytes?: Uint8Array,
  onFileRead?: (sha256: string) => void,
): Promise<MultipartBody> {
  const boundary = `----vredact${randomHex(24)}`;
  let text = '';
  for (const [name, value] of Object.entries(fields)) {
    text += `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(name)}\r\n\r\n${value}\r\n`;
  }
  text += `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(fileField)}; filename=${quoted(fileName)}\r\nContent-Type: ${type}\r\n\r\n`;
  const head = Buffer.from(text, 'utf8');
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'latin1');
  const contentType = `multipart/form-data; boundary=${boundary}`;
  if (bytes) {
    const whole = Buffer.concat([head, bytes, tail]);
    return { contentType, contentLength: whole.length, fileBytes: bytes.length, body: whole };
  }

  // Opened without blocking, and only a regular file: a FIFO swapped in since the check never hangs it.
  const { handle, stats } = await openRegularFile(path);
  const size = stats.size;
  try {
    if (size <= READ_WHOLE_LIMIT) {
      const body = Buffer.allocUnsafe(head.length + size + tail.length);
      head.copy(body, 0);
      let read = 0;
      while (read < size) {
        const { bytesRead } = await handle.read(body, head.length + read, size - read, read);
        if (bytesRead === 0) break;
        read += bytesRead;
      }
      // A file cut short since its stat is sent as what was read; its identity check catches it.
      tail.copy(body, head.length + read);
      const whole = body.subarray(0, head.length + read + tail.length);
      onFileRead?.(
        createHash('sha256')
          .update(body.subarray(head.length, head.length + read))
          .digest('hex'),
      );
      return { contentType, contentLength: whole.length, fileBytes: read, body: whole };
    }
  } finally {
    await handle.close();
  }
  return {
    contentType,
    contentLength: head.length + size + tail.length,
    fileBytes: size,
    body: Readable.from(streamed(head, path, size, tail, onFileRead), { objectMode: false }),
  };
}

/** The large file's part, opened only when undici starts sending (nothing is left open otherwise). */
async function* streamed(
  head: Buffer,
  path: string,
  size: number,
  tail: Buffer,
  onFileRead: ((sha256: string) => void) | undefined,
): AsyncIterable<Uint8Array> {
  yield head;
  // Exactly the announced bytes: a file that grew is cut at its stat'ed size (its hash then differs
  // from its check's); one that shrank ends early, which undici reports as an error.
  const hash = createHash('sha256');
  if (size > 0) {
    const { handle } = await openRegularFile(path);
    // The stream closes the handle when it ends or is destroyed.
    for await (const chunk of handle.createReadStream({ start: 0, end: size - 1 })) {
      hash.update(chunk as Buffer);
      yield chunk as Buffer;
    }
  }
  onFileRead?.(hash.digest('hex'));
  yield tail;
}
