import { describe, expect, it } from 'vitest';
import { unexpectedAnswerHint, urlAndNetworkHint, wrongServiceHint } from '../../src/api/base-url-hints.js';
import { ConnectionError, InvalidResponseError, NotFoundError } from '../../src/api/errors.js';
import { NotAListError } from '../../src/api/json-reader.js';
import { hintNamingSource } from '../../src/api/source-hints.js';

describe('hints about the base URL name where it came from', () => {
  it('the flag, the variable, or the config file as `vredact config get base-url`', () => {
    expect(unexpectedAnswerHint('flag')).toContain('(the URL given with --base-url)');
    expect(unexpectedAnswerHint('env')).toContain('(the URL set in VREDACT_BASE_URL)');
    expect(unexpectedAnswerHint('config')).toContain('(`vredact config get base-url`)');
    expect(unexpectedAnswerHint(undefined)).toBe(unexpectedAnswerHint('config'));
    expect(wrongServiceHint('flag')).toBe(
      'check that the base URL points at the Voice Redaction Service (the URL given with --base-url); the next run sends the files not sent',
    );
  });

  it('an error built without the source leaves the client with it, as the same class and message', () => {
    const invalid = new NotAListError("listing jobs: the service's answer is no list");
    const named = hintNamingSource(invalid, 'env') as NotAListError;
    expect(named).toBeInstanceOf(NotAListError);
    expect(named).toBeInstanceOf(InvalidResponseError);
    expect(named.message).toBe(invalid.message);
    expect(named.hint).toBe(unexpectedAnswerHint('env'));
    expect(invalid.hint).toBe(unexpectedAnswerHint(undefined));

    const dropped = new ConnectionError(
      'listing jobs: network error talking to host:443 (ECONNRESET)',
      false,
    );
    expect((hintNamingSource(dropped, 'flag') as ConnectionError).hint).toBe(urlAndNetworkHint('flag'));
    expect((hintNamingSource(dropped, 'flag') as ConnectionError).refused).toBe(false);
  });

  it('a hint of its own, or an unknown source, is kept', () => {
    const own = new InvalidResponseError('x', undefined, undefined, 1, 'do this');
    expect(hintNamingSource(own, 'flag')).toBe(own);
    const notFound = new NotFoundError('y', 404, undefined, 1, 'check the job id');
    expect(hintNamingSource(notFound, 'env')).toBe(notFound);
    const invalid = new InvalidResponseError('z');
    expect(hintNamingSource(invalid, undefined)).toBe(invalid);
    expect(hintNamingSource('not an error', 'flag')).toBe('not an error');
  });
});
