/** An output stream that records what is written to it, and can pretend to be a terminal. */
import { Writable } from 'node:stream';

export type RecordingStream = Writable & {
  isTTY: boolean;
  columns?: number;
  /** Everything written, cursor movements included (as the escape sequences a terminal gets). */
  text(): string;
  cursorTo(x: number): boolean;
  moveCursor(dx: number, dy: number): boolean;
  clearLine(dir: number): boolean;
};

export function recordingStream(isTTY: boolean, columns?: number): RecordingStream {
  let text = '';
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, callback) {
      text += String(chunk);
      callback();
    },
  }) as RecordingStream;
  stream.isTTY = isTTY;
  if (columns !== undefined) stream.columns = columns;
  stream.text = () => text;
  // What a tty.WriteStream has, written out as the escape sequences it would send.
  stream.cursorTo = (x) => stream.write(`\u001b[${x + 1}G`);
  stream.moveCursor = (dx, dy) => stream.write(`\u001b[${dx},${dy}move`);
  stream.clearLine = () => stream.write('\u001b[2K');
  return stream;
}

/** SGR sequences: the ones that set colours and styles. */
export const SGR = /\u001b\[[\d;]*m/;
