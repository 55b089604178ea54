import { describe, expect, it } from 'vitest';
import { ConnectionError, errorForStatus, InvalidResponseError, TimeoutError } from '../../src/api/errors.js';
import { ResultNotWavError, ResultRejectedError } from '../../src/redact/result-rejected.js';
import {
  answererOf,
  countFailedUpload,
  stopHint,
  WRONG_SERVICE_STREAK,
  WrongServiceError,
  WrongServiceStreak,
} from '../../src/redact/wrong-service.js';

const status = (code: number) => errorForStatus(code, 'redacting a.wav', '<html>page</html>');

function streak() {
  const halts: WrongServiceError[] = [];
  return { halts, streak: new WrongServiceStreak('127.0.0.1:8787', (error) => halts.push(error)) };
}

describe('uploads answered in a row by something that is not the service', () => {
  it('three in a row halt the batch, naming the last answer, who gave it and what to do', () => {
    const { halts, streak: s } = streak();
    expect(WRONG_SERVICE_STREAK).toBe(3);
    s.foreign('404 Not Found');
    s.foreign('404 Not Found');
    expect(halts).toEqual([]);
    s.foreign('405 Method Not Allowed');
    expect(halts).toHaveLength(1);
    expect(halts[0]).toBeInstanceOf(WrongServiceError);
    expect(halts[0]?.message).toBe(
      '3 uploads in a row were answered by something that is not the Voice Redaction Service (405 Method Not Allowed from 127.0.0.1:8787): nothing more was sent',
    );
    expect(halts[0]?.hint).toContain('`vredact config get base-url`');
    expect(halts[0]?.hint).toContain('VREDACT_BASE_URL');
    expect(halts[0]?.exitCode).toBe(1);
  });

  it("an answer of the service between starts the count again: two, the service's, two halt nothing", () => {
    const { halts, streak: s } = streak();
    for (let round = 0; round < 10; round++) {
      s.foreign('404 Not Found');
      s.foreign('404 Not Found');
      s.recognised();
    }
    expect(halts).toEqual([]);
    expect(s.count).toBe(0);
  });

  it('a failed upload counts by its answer: the setup counts, the service resets, no answer leaves it', () => {
    const { halts, streak: s } = streak();
    countFailedUpload(s, status(404));
    countFailedUpload(s, new InvalidResponseError('neither audio nor a job id', 200));
    expect(s.count).toBe(2);
    // No answer at all (a dropped connection, a timeout) says nothing of who is there.
    countFailedUpload(s, new ConnectionError('reset', false));
    countFailedUpload(s, new TimeoutError('timed out'));
    expect(s.count).toBe(2);
    // The service's answers: a result that failed its checks, a refusal of the file, a failure for a moment.
    for (const answer of [
      new ResultRejectedError('the result is 2 s long'),
      status(400),
      status(413),
      status(500),
    ]) {
      countFailedUpload(s, answer);
      expect(s.count).toBe(0);
      countFailedUpload(s, status(302));
      expect(s.count).toBe(1);
    }
    expect(halts).toEqual([]);
    countFailedUpload(s, status(501));
    expect(halts).toEqual([]);
    countFailedUpload(s, status(405));
    // Those in flight at the stop are answered so too: the batch halts once.
    countFailedUpload(s, status(405));
    expect(halts.map((error) => error.message)).toEqual([
      '3 uploads in a row were answered by something that is not the Voice Redaction Service (405 Method Not Allowed from 127.0.0.1:8787): nothing more was sent',
    ]);
  });

  it('a "result" that is no WAV at all counts; a WAV that failed its checks is the service\'s', () => {
    const { halts, streak: s } = streak();
    countFailedUpload(
      s,
      new ResultNotWavError('the result (audio/wav) is not a WAV file (no RIFF/WAVE header)'),
    );
    countFailedUpload(
      s,
      new ResultNotWavError('the result (audio/wav) is not a WAV file (no RIFF/WAVE header)'),
    );
    expect(s.count).toBe(2);
    countFailedUpload(s, new ResultRejectedError('the result (audio/wav) is a WAV file cut short'));
    expect(s.count).toBe(0);
    for (let i = 0; i < 3; i++) countFailedUpload(s, new ResultNotWavError('not a WAV file'));
    expect(halts.map((error) => error.message)).toEqual([
      '3 uploads in a row were answered by something that is not the Voice Redaction Service (a result that is no WAV file at all from 127.0.0.1:8787): nothing more was sent',
    ]);
  });

  it('names who answered by host and port', () => {
    expect(answererOf('https://redaction.example.com/base')).toBe('redaction.example.com:443');
    expect(answererOf('http://127.0.0.1:8787')).toBe('127.0.0.1:8787');
    expect(answererOf(undefined)).toBe('the base URL');
  });

  it("a stop's hint names where the base URL came from, and what the next run does of that stop", () => {
    const uploads = new WrongServiceError(3, '404 Not Found', '127.0.0.1:8787');
    expect(stopHint(uploads, 'env')).toBe(
      'check that the base URL points at the Voice Redaction Service (the URL set in VREDACT_BASE_URL); the next run sends the files not sent',
    );
    // Jobs of earlier runs met a 404 there: nothing was sent, and the next run looks at those jobs.
    const gone = WrongServiceError.goneAtNonService('404 Not Found', '127.0.0.1:8787');
    for (const hint of [stopHint(gone, 'flag'), stopHint(gone, 'env'), stopHint(gone, 'config'), gone.hint]) {
      expect(hint).toMatch(/^check that the base URL points at the Voice Redaction Service \(/);
      expect(hint).toMatch(
        /; once it does, run the same command again: it looks at those jobs at the service$/,
      );
      expect(hint).not.toContain('sends the files not sent');
    }
    expect(stopHint(gone, 'flag')).toContain('(the URL given with --base-url)');
    expect(gone.hint).toContain('`vredact config get base-url`');
  });
});
