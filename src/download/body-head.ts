/**
 * A body's first bytes, read before any of it is passed on (what kind of file it is, what its header
 * declares, decide how it is passed on), and the body again from its start.
 */
export interface HeadOfBody {
  /** The chunks read: at least the bytes asked for, or the whole body when it is shorter. */
  head: Buffer;
  /** The body from its first byte: the chunks read, then the rest as it comes. */
  whole(): AsyncIterable<Uint8Array>;
  /** Closes the body where it was left unread, as a `for await` that stops closes it. */
  close(): Promise<void>;
}

export async function readHead(body: AsyncIterable<Uint8Array>, bytes: number): Promise<HeadOfBody> {
  const chunks = body[Symbol.asyncIterator]();
  const read: Uint8Array[] = [];
  let total = 0;
  let ended = false;
  while (total < bytes) {
    const next = await chunks.next();
    if (next.done) {
      ended = true;
      break;
    }
    read.push(next.value);
    total += next.value.byteLength;
  }
  return {
    head: Buffer.concat(read, total),
    async *whole() {
      yield* read;
      if (ended) return;
      for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
    },
    close: async () => {
      await chunks.return?.();
    },
  };
}
