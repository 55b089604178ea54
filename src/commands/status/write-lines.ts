import type { Writable } from 'node:stream';

/**
 * Writes many lines to a stream without holding them all: gathers them into chunks of about 64 KiB
 * and waits for `drain` when the stream is full. A reader that goes away (`vredact status | head`,
 * EPIPE) ends the writing quietly: `write` then returns false and the caller stops.
 */
export interface LineWriter {
  /** Queues `text`; false once the reader is gone. */
  write(text: string): Promise<boolean>;
  /** Writes what is gathered; false once the reader is gone. */
  flush(): Promise<boolean>;
}

const CHUNK_CHARS = 64 * 1024;

export function lineWriter(stream: Writable): LineWriter {
  let gone = false;
  stream.on('error', () => {
    gone = true;
  });
  let gathered = '';

  const send = async (): Promise<boolean> => {
    const text = gathered;
    gathered = '';
    if (gone) return false;
    if (text === '' || stream.write(text)) return !gone;
    await new Promise<void>((resolve) => {
      const done = () => {
        stream.off('drain', done);
        stream.off('error', done);
        stream.off('close', done);
        resolve();
      };
      stream.on('drain', done);
      stream.on('error', done);
      stream.on('close', done);
    });
    return !gone;
  };

  return {
    async write(text) {
      if (gone) return false;
      gathered += text;
      return gathered.length < CHUNK_CHARS ? true : send();
    },
    flush: send,
  };
}
