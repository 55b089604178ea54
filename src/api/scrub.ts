/**
 * Strings from the service are scrubbed of the client's secrets at the client's boundary, before
 * anything can print, JSON-encode or journal them: a server (or a proxy) that echoes the
 * Authorization header in its answers never gets the token onto a terminal or into a file.
 */
import { redactSecrets } from '../settings/mask.js';

/** How deep a parsed answer is walked; deeper parts are dropped rather than kept unscrubbed. */
const MAX_DEPTH = 32;

export type Scrub = (text: string) => string;

/** A scrubber for the token and whatever else the caller counts as secret (URL credentials). */
export function scrubberFor(secrets: ReadonlyArray<string | undefined>): Scrub {
  const present = secrets.filter((secret): secret is string => !!secret && secret.length >= 4);
  // `Bearer <token>` is the form an echo takes; the bare token is matched inside it too.
  return present.length === 0 ? (text) => text : (text) => redactSecrets(text, present);
}

/** Every string of a parsed JSON value (keys too) scrubbed; the value is rebuilt, never mutated. */
export function scrubDeep(value: unknown, scrub: Scrub, depth = 0): unknown {
  if (typeof value === 'string') return scrub(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return null;
  if (Array.isArray(value)) return value.map((item) => scrubDeep(item, scrub, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[scrub(key)] = scrubDeep(item, scrub, depth + 1);
  return out;
}
