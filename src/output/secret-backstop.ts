/**
 * The last line of defence for the token: every text written to stdout or stderr through a command's
 * streams has the secrets in effect masked whole (`vr_…9f3a`). The service's answers are scrubbed
 * more thoroughly at the client's boundary (src/api/scrub.ts); this catches what never came from the
 * service: a file name on disk, a journal written by an older version. Bytes (a result's audio) pass
 * as they are.
 */
import { redactSecrets } from '../settings/mask.js';
import type { OutStream } from './iostreams.js';

export type Secrets = () => ReadonlyArray<string | undefined>;

/**
 * `stream` with its text writes masked. Every other member is the stream's own, bound to it, so
 * events, backpressure, `isTTY` and `columns` are untouched; lines are written whole (LineBatches,
 * printTable), so a token never straddles two writes.
 */
export function maskingStream<S extends OutStream>(stream: S, secrets: Secrets): S {
  const write = (chunk: unknown, ...rest: unknown[]): boolean =>
    (stream.write as (...args: unknown[]) => boolean)(
      typeof chunk === 'string' ? redactSecrets(chunk, secrets()) : chunk,
      ...rest,
    );
  return new Proxy(stream, {
    get(target, key) {
      if (key === 'write') return write;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
