import { describe, expect, it } from 'vitest';
import {
  ConnectionError,
  ConnectTimeoutError,
  errorForStatus,
  InvalidResponseError,
  TimeoutError,
} from '../../src/api/errors.js';
import { RetryableStatusError } from '../../src/api/retry.js';
import {
  answerPointsAtSetup,
  firstLookPointsAtSetup,
  setupAnswerWords,
  uploadMayHaveBeenAccepted,
  uploadSafeToResend,
} from '../../src/api/upload-fate.js';

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

  it.each([301, 302, 307, 308])(
    'a %d says the upload was not processed there: not taken, not looked for, not retried in the run',
    (code) => {
      expect(uploadMayHaveBeenAccepted(status(code))).toBe(false);
      expect(uploadSafeToResend(status(code))).toBe(false);
    },
  );

  it('a 303 See Other says it was processed, its result elsewhere: it may have been accepted', () => {
    expect(uploadMayHaveBeenAccepted(status(303))).toBe(true);
    expect(uploadSafeToResend(status(303))).toBe(false);
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

describe('an upload answered by something that is not the service', () => {
  it.each([404, 405, 501])(
    'a %d of the upload, a path every service answers, points at the setup',
    (code) => {
      expect(answerPointsAtSetup(status(code))).toBe(true);
    },
  );

  it.each([301, 302, 307, 308])('a %d, a redirect never followed, points at the setup', (code) => {
    expect(answerPointsAtSetup(status(code))).toBe(true);
  });

  it('a 2xx that is neither audio nor a job points at the setup; an unreadable answer with no status does not', () => {
    expect(answerPointsAtSetup(new InvalidResponseError('neither audio nor a job id', 200))).toBe(true);
    expect(answerPointsAtSetup(new InvalidResponseError('does not decode as gzip'))).toBe(false);
  });

  it.each([400, 401, 403, 408, 409, 413, 422, 429, 500, 502, 503, 504])(
    'a %d is an answer of the service (the file, the token, a moment)',
    (code) => {
      expect(answerPointsAtSetup(status(code))).toBe(false);
    },
  );

  it('a failure with no answer is no answer of anything', () => {
    expect(answerPointsAtSetup(new ConnectionError('reset', false))).toBe(false);
    expect(answerPointsAtSetup(new TimeoutError('timed out'))).toBe(false);
    expect(answerPointsAtSetup(new Error('EIO'))).toBe(false);
  });

  it("a job named by this run's upload and not found at its first look points at the setup", () => {
    expect(firstLookPointsAtSetup(status(404))).toBe(true);
    expect(firstLookPointsAtSetup(status(500))).toBe(false);
    expect(firstLookPointsAtSetup(new ConnectionError('reset', false))).toBe(false);
  });

  it('says the answer in a few words', () => {
    expect(setupAnswerWords(404)).toBe('404 Not Found');
    expect(setupAnswerWords(405)).toBe('405 Method Not Allowed');
    expect(setupAnswerWords(200)).toBe('200 OK with neither audio nor a job id');
    expect(setupAnswerWords(299)).toBe('299 with neither audio nor a job id');
  });
});
