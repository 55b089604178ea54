import { describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  errorForStatus,
  InternalServerError,
  InvalidResponseError,
  isTokenRefused,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  UNEXPECTED_ANSWER_HINT,
} from '../../src/api/errors.js';
import { serviceMessageOf } from '../../src/api/error-message.js';
import { asLinkMissing, LinkMissingError } from '../../src/api/link-errors.js';
import { scrubberFor } from '../../src/api/scrub.js';
import { ExitCode } from '../../src/errors.js';
import { MAX_MESSAGE_CHARS } from '../../src/output/sanitize.js';

describe('errorForStatus', () => {
  it.each([
    [401, AuthenticationError, ExitCode.auth],
    [403, PermissionDeniedError, ExitCode.auth],
    [404, NotFoundError, ExitCode.partial],
    [413, PayloadTooLargeError, ExitCode.partial],
    [429, RateLimitError, ExitCode.partial],
    [500, InternalServerError, ExitCode.partial],
    [503, InternalServerError, ExitCode.partial],
    [400, BadRequestError, ExitCode.partial],
    [422, BadRequestError, ExitCode.partial],
    [302, InvalidResponseError, ExitCode.partial],
  ])('%d is a %o with exit code %d', (status, kind, exitCode) => {
    const error = errorForStatus(status, 'listing jobs', '');
    expect(error).toBeInstanceOf(kind);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(status);
    expect(error.exitCode).toBe(exitCode);
    expect(error.message).toMatch(new RegExp(`^listing jobs: the service answered ${status}`));
  });

  it('a refusal (a 4xx but 401, 403, 404, 413, 429) says to check the base URL, unless told what to do', () => {
    for (const status of [400, 405, 409, 410, 422]) {
      expect(errorForStatus(status, 'listing jobs', '').hint).toBe(UNEXPECTED_ANSWER_HINT);
    }
    expect(errorForStatus(400, 'x', '', undefined, 'check the file name').hint).toBe('check the file name');
    // The interface's 413 is an upload too large: no base URL to check.
    expect(errorForStatus(413, 'redacting a.wav', '').hint).toBeUndefined();
    expect(errorForStatus(413, 'x', '', undefined, 'check the file name').hint).toBe('check the file name');
  });

  it("names the status and carries the service's message", () => {
    const error = errorForStatus(404, 'reading job x', '{"error":404,"message":"job not found"}');
    expect(error.message).toBe('reading job x: the service answered 404 Not Found: job not found');
    expect(error.serviceMessage).toBe('job not found');
  });

  it("the service's message is scrubbed, its control characters escaped, and cut", () => {
    const token = 'vr_live_0123456789abcdef';
    const body = JSON.stringify({ message: `\u001b[31mBearer ${token}\u001b[0m ${'y'.repeat(1000)}` });
    const error = errorForStatus(500, 'x', body, scrubberFor([token]));
    expect(error.serviceMessage).not.toContain(token);
    expect(error.serviceMessage).not.toContain('\u001b');
    expect(error.serviceMessage?.startsWith('\\x1b[31mBearer vr_…cdef')).toBe(true);
    expect(error.serviceMessage).toMatch(/… \(\d+ more characters\)$/);
    expect(error.serviceMessage!.length).toBeLessThan(MAX_MESSAGE_CHARS + 40);
  });

  it('only 401 and 403 mean the token was refused', () => {
    expect(isTokenRefused(errorForStatus(401, 'x', ''))).toBe(true);
    expect(isTokenRefused(errorForStatus(403, 'x', ''))).toBe(true);
    for (const status of [400, 404, 413, 429, 500])
      expect(isTokenRefused(errorForStatus(status, 'x', ''))).toBe(false);
    expect(isTokenRefused(new Error('401'))).toBe(false);
  });
});

describe('asLinkMissing', () => {
  it("types a link host's 404 and 410 as LinkMissingError, its words, status and hint kept; nothing else", () => {
    for (const status of [404, 410]) {
      const error = errorForStatus(status, 'downloading a.wav', '', undefined, 'a fresh link', 'the host');
      const missing = asLinkMissing(error);
      expect(missing).toBeInstanceOf(LinkMissingError);
      expect(missing).toMatchObject({
        message: error.message,
        status,
        hint: 'a fresh link',
        exitCode: ExitCode.partial,
      });
    }
    const other = errorForStatus(500, 'downloading a.wav', '');
    expect(asLinkMissing(other)).toBe(other);
    const plain = new Error('not an answer');
    expect(asLinkMissing(plain)).toBe(plain);
  });
});

describe('serviceMessageOf', () => {
  it.each([
    ['{"error":400,"message":"bad field"}', 'bad field'],
    ['{"message":"  padded  "}', 'padded'],
    ['{"message":"   "}', undefined],
    ['{"message":42}', undefined],
    ['<html>Bad Gateway</html>', undefined],
    ['', undefined],
    ['null', undefined],
    // A UTF-8 byte order mark before the JSON.
    ['\uFEFF{"error":404,"message":"job not found"}', 'job not found'],
    // An RFC 9457 problem (application/problem+json): its detail, else its title; the interface's message first.
    ['{"type":"about:blank","title":"Not Found","status":404,"detail":"job 7 not found"}', 'job 7 not found'],
    ['{"title":"Job not found","status":404}', 'Job not found'],
    ['{"message":"from the service","detail":"from a problem"}', 'from the service'],
    ['{"message":" ","detail":"the detail"}', 'the detail'],
    ['[{"message":"in a list"}]', undefined],
  ])('%j gives %j', (body, message) => {
    expect(serviceMessageOf(body)).toBe(message);
  });
});
