import { describe, expect, it } from 'vitest';
import {
  ConnectionError,
  ConnectTimeoutError,
  errorForStatus,
  InvalidResponseError,
  TimeoutError,
} from '../../src/api/errors.js';
import { RetryableStatusError } from '../../src/api/retry.js';
import { uploadMayHaveBeenAccepted, uploadSafeToResend } from '../../src/api/upload-fate.js';

const status = (code: number) => errorForStatus(code, 'redacting a.wav', '');

describe('the fate of an upload that failed', () => {
  it.each([429, 503])('a %d means not accepted: safe to send again, not looked for', (code) => {
    expect(uploadSafeToResend(status(code))).toBe(true);
    expect(uploadSafeToResend(new RetryableStatusError(status(code), 0))).toBe(true);
    expect(uploadMayHaveBeenAccepted(status(code))).toBe(false);
  });

  it.each([500, 502, 504])('a %d may have been accepted: not sent again blindly, looked for', (code) => {
    expect(uploadSafeToResend(status(code))).toBe(false);
    expect(uploadMayHaveBeenAccepted(status(code))).toBe(true);
  });

  it.each([400, 401, 403, 404, 413])('a %d is a plain refusal: neither resent nor looked for', (code) => {
    expect(uploadSafeToResend(status(code))).toBe(false);
    expect(uploadMayHaveBeenAccepted(status(code))).toBe(false);
  });

  it('a refused connection, or one that timed out before it was made, never left; a dropped one may have arrived', () => {
    const refused = new ConnectionError('cannot connect', true);
    const neverMade = new ConnectTimeoutError('cannot connect (timed out)');
    const dropped = new ConnectionError('reset', false);
    expect([uploadSafeToResend(refused), uploadMayHaveBeenAccepted(refused)]).toEqual([true, false]);
    expect([uploadSafeToResend(neverMade), uploadMayHaveBeenAccepted(neverMade)]).toEqual([true, false]);
    expect([uploadSafeToResend(dropped), uploadMayHaveBeenAccepted(dropped)]).toEqual([false, true]);
  });

  it('a timeout once connected, or an unreadable answer, may have been accepted', () => {
    for (const error of [new TimeoutError('slow'), new InvalidResponseError('garbled')]) {
      expect(uploadSafeToResend(error)).toBe(false);
      expect(uploadMayHaveBeenAccepted(error)).toBe(true);
    }
  });

  it("an error that is not the service's says nothing either way", () => {
    expect(uploadSafeToResend(new Error('ENOENT'))).toBe(false);
    expect(uploadMayHaveBeenAccepted(new Error('ENOENT'))).toBe(false);
  });
});
