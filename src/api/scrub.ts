/**
 * Strings from the service are scrubbed of the client's secrets at the client's boundary, before
 * anything can print, JSON-encode or journal them: a server (or a proxy) that echoes the
 * Authorization header in its answers never gets the token onto a terminal or into a file.
 */
import { maskToken, MIN_SHOWN_TOKEN, redactSecrets } from '../settings/mask.js';
import { hasLoneSurrogate, SHOWN_ESCAPED_PAST_C0 } from '../output/sanitize.js';
import { NumberLiteral } from './exact-json.js';
import type { Headers } from './transport.js';

/** How deep a parsed answer is walked; deeper parts are dropped rather than kept unscrubbed. */
const MAX_DEPTH = 32;

export type Scrub = (text: string) => string;

/** A user name or password as a URL carries it, decoded: a server echoes the decoded form. */
export function urlSecret(text: string): string | undefined {
  if (!text) return undefined;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Shortest run of a secret's characters masked on its own. A server may echo the token cut short
 * (`invalid token vr_live_01234567...`) or upper-cased. A run this long of a random token does not
 * turn up by chance in the service's ids and signed URLs, which are scrubbed too and must stay as
 * sent (even a hex token against hex signatures: about one in 10^12 per place). Only the service's
 * text is searched for parts, not vredact's own messages: a test token may hold the word `download`.
 */
export const MIN_SECRET_PART = 10;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A pattern of every run of MIN_SECRET_PART characters of `lower` (a secret, lower-cased), any case. */
function partFinder(lower: string): RegExp {
  const runs = new Set<string>();
  for (let i = 0; i + MIN_SECRET_PART <= lower.length; i++)
    runs.add(escapeRegExp(lower.slice(i, i + MIN_SECRET_PART)));
  return new RegExp([...runs].join('|'), 'gi');
}

/** A masker of every run of at least MIN_SECRET_PART characters of `secret` in a text, as long as it goes. */
function partMasker(secret: string): Scrub {
  const lower = secret.toLowerCase();
  const finder = partFinder(lower);
  const masked = maskToken(secret);
  return (text) => {
    let out = '';
    let from = 0;
    finder.lastIndex = 0;
    for (let match = finder.exec(text); match !== null; match = finder.exec(text)) {
      let end = match.index + MIN_SECRET_PART;
      while (end < text.length && lower.includes(text.slice(match.index, end + 1).toLowerCase())) end++;
      out += `${text.slice(from, match.index)}${masked}`;
      from = end;
      finder.lastIndex = end;
    }
    return from === 0 ? text : out + text.slice(from);
  };
}

/**
 * What splits a text without showing: whole escape sequences (CSI `ESC [ … m`, C1's CSI, OSC `ESC ] …
 * BEL`), and the controls and invisible characters that display escapes (sanitize.ts). A token with
 * a colour change or a zero-width space every few characters (`vr_li\x1b[0mve_…`) holds no run of
 * itself, yet reads whole once the text is shown raw, or decoded from `--json` and printed.
 */
const HIDDEN = new RegExp(
  `\\u001b\\[[0-?]*[ -/]*[@-~]|\\u009b[0-?]*[ -/]*[@-~]|\\u001b\\][^\\u0007\\u001b]*(?:\\u0007|\\u001b\\\\)?|[\\u0000-\\u0008\\u000a-\\u001f${SHOWN_ESCAPED_PAST_C0}]`,
  'g',
);

/**
 * A masker of every run of at least MIN_SECRET_PART characters of `secret` that reads as one once
 * what HIDDEN matches is taken out: the whole span, what split it included, is masked.
 */
function hiddenSplitMasker(secret: string): Scrub {
  const lower = secret.toLowerCase();
  const finder = partFinder(lower);
  const masked = maskToken(secret);
  return (text) => {
    HIDDEN.lastIndex = 0;
    const any = HIDDEN.test(text);
    // matchAll starts where the last search left off.
    HIDDEN.lastIndex = 0;
    if (!any) return text;
    // The text as shown, and where each of its characters stands in `text`.
    let shown = '';
    const place: number[] = [];
    let from = 0;
    const keep = (end: number) => {
      for (let i = from; i < end; i++) place.push(i);
      shown += text.slice(from, end);
    };
    for (const hidden of text.matchAll(HIDDEN)) {
      keep(hidden.index);
      from = hidden.index + hidden[0].length;
    }
    keep(text.length);
    let out = '';
    let cut = 0;
    finder.lastIndex = 0;
    for (let match = finder.exec(shown); match !== null; match = finder.exec(shown)) {
      let end = match.index + MIN_SECRET_PART;
      while (end < shown.length && lower.includes(shown.slice(match.index, end + 1).toLowerCase())) end++;
      out += `${text.slice(cut, place[match.index])}${masked}`;
      cut = (place[end - 1] ?? text.length - 1) + 1;
      finder.lastIndex = end;
    }
    return cut === 0 ? text : out + text.slice(cut);
  };
}

/**
 * The other forms a server plausibly echoes a secret in: percent-encoded (in a URL, a `Location`),
 * either case of hex digit, and base64, standard and URL-safe, at each of the three alignments the
 * secret can have inside a longer encoded text (`Bearer <token>` encoded whole), as CI runners mask
 * their secrets. Base64 only of a secret long enough to show masked: the form of a short one could
 * turn up by chance in a signed URL's signature, which must stay as sent.
 */
function encodedForms(secret: string): string[] {
  const forms = new Set<string>();
  const percent = hasLoneSurrogate(secret) ? secret : encodeURIComponent(secret);
  if (percent !== secret) {
    forms.add(percent);
    forms.add(percent.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()));
  }
  if (secret.length >= MIN_SHOWN_TOKEN) {
    const bytes = Buffer.from(secret);
    for (let skip = 0; skip < 3; skip++) {
      const groups = bytes.subarray(skip, skip + Math.floor((bytes.length - skip) / 3) * 3);
      forms.add(groups.toString('base64'));
      forms.add(groups.toString('base64url'));
    }
  }
  return [...forms];
}

/** A masker of each encoded form of `secret`, whole, as the secret's own masked form. */
function encodedMasker(secret: string): Scrub {
  const forms = encodedForms(secret);
  const masked = maskToken(secret);
  return (text) => forms.reduce((out, form) => out.split(form).join(masked), text);
}

/** A scrubber for the token and whatever else the caller counts as secret (URL credentials). */
export function scrubberFor(secrets: ReadonlyArray<string | undefined>): Scrub {
  const present = secrets.filter((secret): secret is string => !!secret && secret.length >= 4);
  if (present.length === 0) return (text) => text;
  const encoded = present.map(encodedMasker);
  // A secret too short to show masked has no part worth hiding apart from the whole.
  const long = present.filter((secret) => secret.length >= MIN_SHOWN_TOKEN);
  // Split ones first: a token cut in two by a colour change holds two runs that would be masked apart.
  const parts = [...long.map(hiddenSplitMasker), ...long.map(partMasker)];
  // `Bearer <token>` is the form an echo takes; the bare token is matched inside it too. Encoded
  // forms first: a percent-encoded one holds runs of the secret's own characters.
  return (text) => {
    const unencoded = encoded.reduce((out, mask) => mask(out), text);
    return parts.reduce((out, mask) => mask(out), redactSecrets(unencoded, present));
  };
}

/** Every string of a parsed JSON value (keys too) scrubbed; the value is rebuilt, never mutated. */
export function scrubDeep(value: unknown, scrub: Scrub, depth = 0): unknown {
  if (typeof value === 'string') return scrub(value);
  // A number's literal holds digits, a sign, a point or an exponent: nothing of a secret.
  if (value === null || typeof value !== 'object' || value instanceof NumberLiteral) return value;
  if (depth >= MAX_DEPTH) return null;
  if (Array.isArray(value)) return value.map((item) => scrubDeep(item, scrub, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[scrub(key)] = scrubDeep(item, scrub, depth + 1);
  return out;
}

/**
 * An answer's headers with every value scrubbed: errors quote some of them (an unknown
 * `Content-Encoding`, a result's `Content-Type`, a redirect's `Location`), and a server that echoes
 * the Authorization header can put the token in any of them.
 */
export function scrubHeaders(headers: Headers, scrub: Scrub): Headers {
  const out: Headers = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = Array.isArray(value) ? value.map(scrub) : value === undefined ? value : scrub(value);
  }
  return out;
}
