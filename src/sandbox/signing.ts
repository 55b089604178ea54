/**
 * Signed URLs of the file listener:
 * `/files/<jobId>/<fileName>?expires=<unix seconds>&sig=<hex HMAC-SHA256>`, where the HMAC (with a
 * key drawn at random per process) covers the canonical path (both segments percent-encoded with
 * encodeURIComponent), a newline and the expiry. A restart invalidates earlier URLs, as keys rotate.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SIGNED_URL_TTL_SEC } from './limits.js';

export function filePath(jobId: string, fileName: string): string {
  return `/files/${encodeURIComponent(jobId)}/${encodeURIComponent(fileName)}`;
}

export type Verified =
  | { ok: true; jobId: string; fileName: string }
  | { ok: false; status: 403 | 404; code: string; message: string };

export class UrlSigner {
  readonly #key = randomBytes(32);

  constructor(
    readonly origin: string,
    readonly ttlSec = SIGNED_URL_TTL_SEC,
    readonly now: () => number = Date.now,
  ) {}

  #mac(path: string, expires: number): string {
    return createHmac('sha256', this.#key).update(`${path}\n${expires}`).digest('hex');
  }

  sign(jobId: string, fileName: string): string {
    const path = filePath(jobId, fileName);
    const expires = Math.floor(this.now() / 1000) + this.ttlSec;
    return `${this.origin}${path}?expires=${expires}&sig=${this.#mac(path, expires)}`;
  }

  /** Checks the path and query of a request to the file listener. */
  verify(rawUrl: string): Verified {
    const url = new URL(rawUrl, 'http://sandbox.invalid');
    const match = /^\/files\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (!match)
      return { ok: false, status: 404, code: 'NoSuchKey', message: 'The specified key does not exist.' };
    let jobId: string;
    let fileName: string;
    try {
      jobId = decodeURIComponent(match[1]!);
      fileName = decodeURIComponent(match[2]!);
    } catch {
      return { ok: false, status: 404, code: 'NoSuchKey', message: 'The specified key does not exist.' };
    }
    const expiresText = url.searchParams.get('expires') ?? '';
    const sig = url.searchParams.get('sig') ?? '';
    if (!/^\d{1,12}$/.test(expiresText) || !/^[0-9a-f]{64}$/.test(sig)) {
      return {
        ok: false,
        status: 403,
        code: 'AccessDenied',
        message: 'Query-string authentication requires the expires and sig parameters.',
      };
    }
    const expires = Number(expiresText);
    const expected = Buffer.from(this.#mac(filePath(jobId, fileName), expires), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(sig, 'hex'))) {
      return {
        ok: false,
        status: 403,
        code: 'SignatureDoesNotMatch',
        message: 'The request signature does not match.',
      };
    }
    if (expires * 1000 < this.now()) {
      return { ok: false, status: 403, code: 'AccessDenied', message: 'Request has expired.' };
    }
    return { ok: true, jobId, fileName };
  }
}
