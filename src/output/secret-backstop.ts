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
 * printTable), so a token never straddles two writes. A `write` put in its place (ora hooks it while a
 * spinner turns, and puts back the one it took) is kept on the wrapper: set on the stream, it would
 * call the wrapper's, which calls the stream's, without end.
 */
export function maskingStream<S extends OutStream>(stream: S, secrets: Secrets): S {
  // The stream's own write is looked up at each call, not kept: ora hooks process.stdout's and
  // process.stderr's while a spinner turns, to clear the live line before another line is written;
  // a write kept from before would pass it by, and the line would stay with a path written after it.
  const masked = (chunk: unknown, ...rest: unknown[]): boolean => {
    const write = Reflect.get(stream, 'write', stream) as (...args: unknown[]) => boolean;
    return write.call(stream, typeof chunk === 'string' ? redactSecrets(chunk, secrets()) : chunk, ...rest);
  };
  const ownWrite: unknown = Reflect.get(stream, 'write', stream);
  let hooked: unknown;
  return new Proxy(stream, {
    get(target, key) {
      // ora hooks the stream it draws on (this wrapper) and process.stderr and process.stdout, the
      // streams underneath: a line written here would go through both hooks, and the live line be
      // cleared and drawn twice for it. While the stream underneath is hooked, its hook alone does it.
      if (key === 'write')
        return Reflect.get(target, 'write', target) === ownWrite ? (hooked ?? masked) : masked;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
    set(target, key, value: unknown) {
      if (key !== 'write') return Reflect.set(target, key, value, target);
      hooked = value === masked ? undefined : value;
      return true;
    },
  });
}
