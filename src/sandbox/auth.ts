/** Bearer authentication of the API endpoints. */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export type AuthResult = { ok: true; token: string } | { ok: false; status: 401 | 403; message: string };

export function generateToken(): string {
  return `vr_sandbox_${randomBytes(16).toString('hex')}`;
}

/**
 * No Authorization header: 401. A header that is not `Bearer <accepted token>`: 403. The scheme is
 * matched case-insensitively (RFC 9110); the token exactly.
 */
export function authenticate(req: IncomingMessage, tokens: ReadonlySet<string>): AuthResult {
  const header = req.headers.authorization;
  if (header === undefined) {
    return { ok: false, status: 401, message: 'the Authorization header is missing' };
  }
  const match = /^Bearer +(\S+) *$/i.exec(header);
  if (!match?.[1] || !tokens.has(match[1])) {
    return { ok: false, status: 403, message: 'the token is not valid' };
  }
  return { ok: true, token: match[1] };
}
