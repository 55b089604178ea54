import { describe, expect, test } from 'vitest';
import { memoryConfigStore } from '../../src/settings/config-store.js';
import { maskToken, redactSecrets } from '../../src/settings/mask.js';
import { displayBaseUrl, validateBaseUrl } from '../../src/settings/base-url.js';
import { requireService, resolveSettings } from '../../src/settings/settings.js';
import { voiceFormFields } from '../../src/settings/voice.js';

describe('settings precedence', () => {
  const store = memoryConfigStore({ 'base-url': 'https://config.example', concurrency: '8', gender: 'f' });

  test('flag beats environment beats config beats default', () => {
    const env = { VREDACT_BASE_URL: 'https://env.example', VREDACT_CONCURRENCY: '6' };
    const fromFlag = resolveSettings({ baseUrl: 'https://flag.example', concurrency: '2' }, env, store);
    expect(fromFlag.baseUrl).toBe('https://flag.example');
    expect(fromFlag.concurrency).toBe(2);
    expect(fromFlag.sources['base-url']).toBe('flag');

    const fromEnv = resolveSettings({}, env, store);
    expect(fromEnv.baseUrl).toBe('https://env.example');
    expect(fromEnv.concurrency).toBe(6);
    expect(fromEnv.sources.concurrency).toBe('env');

    const fromConfig = resolveSettings({}, {}, store);
    expect(fromConfig.baseUrl).toBe('https://config.example');
    expect(fromConfig.concurrency).toBe(8);
    expect(fromConfig.voice.gender).toBe('f');

    const defaults = resolveSettings({}, {}, memoryConfigStore());
    expect(defaults.baseUrl).toBeUndefined();
    expect(defaults.concurrency).toBe(4);
    expect(defaults.maxRetries).toBe(4);
    expect(defaults.sources.concurrency).toBe('default');
  });

  test('an empty environment variable does not hide the config file', () => {
    expect(resolveSettings({}, { VREDACT_BASE_URL: '' }, store).baseUrl).toBe('https://config.example');
  });

  test('bad values are usage errors (exit 2)', () => {
    expect(() => resolveSettings({ concurrency: '0' }, {}, store)).toThrow(/concurrency/);
    expect(() => resolveSettings({ concurrency: '65' }, {}, store)).toThrow(/1 to 64/);
    expect(() => resolveSettings({ gender: 'x' }, {}, store)).toThrowError(
      expect.objectContaining({ exitCode: 2 }),
    );
  });

  test('NO_COLOR and --no-color turn colour off', () => {
    expect(resolveSettings({}, { NO_COLOR: '1' }, store).color).toBe(false);
    expect(resolveSettings({ color: false }, {}, store).color).toBe(false);
    expect(resolveSettings({}, {}, store).color).toBe(true);
  });

  test('the voice maps onto the form fields of the interface, unset ones not sent', () => {
    expect(voiceFormFields({ model: 'advanced', age: 'senior-adult', avatar: 'a1' })).toEqual({
      model_id: 'advanced',
      age: 'senior-adult',
      avatar: 'a1',
    });
    expect(voiceFormFields({})).toEqual({});
  });
});

describe('base URL', () => {
  test('https anywhere, http only on loopback unless insisted', () => {
    expect(validateBaseUrl('https://api.example.com', false).host).toBe('api.example.com');
    expect(validateBaseUrl('http://127.0.0.1:8787', false).port).toBe('8787');
    expect(validateBaseUrl('http://localhost:1', false).hostname).toBe('localhost');
    expect(validateBaseUrl('http://[::1]:1', false).hostname).toBe('[::1]');
    expect(() => validateBaseUrl('http://api.example.com', false)).toThrow(/plain http/);
    expect(validateBaseUrl('http://api.example.com', true).protocol).toBe('http:');
    expect(() => validateBaseUrl('ftp://x', true)).toThrow(/https/);
    expect(() => validateBaseUrl('not a url', false)).toThrow(/not a valid URL/);
    // `host:` was read as the default port: the token went to port 80 of a loopback address.
    for (const text of ['http://127.0.0.1:', 'https://api.example.com:/v1', 'http://[::1]:']) {
      expect(() => validateBaseUrl(text, false)).toThrowError(
        expect.objectContaining({ message: expect.stringContaining('has a ":" but no port'), exitCode: 2 }),
      );
    }
    expect(validateBaseUrl('http://[::1]:8787', false).port).toBe('8787');
    expect(validateBaseUrl('http://[::1]', false).port).toBe('');
  });

  test('a missing URL says how to set one and mentions the sandbox', () => {
    const settings = resolveSettings({}, {}, memoryConfigStore());
    expect(() => requireService(settings)).toThrowError(
      expect.objectContaining({ exitCode: 2, hint: expect.stringContaining('vredact sandbox') }),
    );
  });
});

describe('token masking', () => {
  test('shows the prefix and the last four characters only', () => {
    expect(maskToken('vr_abcdefghijkl9f3a')).toBe('vr_…9f3a');
    expect(maskToken('abcdefghijkl9f3a')).toBe('…9f3a');
    expect(maskToken('short')).toBe('…');
    expect(maskToken(undefined)).toBe('');
  });

  test('secrets are masked wherever they appear in a line', () => {
    const token = 'vr_secret_value_1234';
    const line = redactSecrets(`GET /x?t=${token} failed for ${token}`, [token, undefined]);
    expect(line).not.toContain(token);
    expect(line).toContain('vr_…1234');
  });
});

describe('base URLs with user information', () => {
  const withPassword = 'http://user:hunter2@127.0.0.1:8787';

  test('are refused wherever they come from, without repeating the password', () => {
    for (const [flags, env, store] of [
      [{ baseUrl: withPassword }, {}, memoryConfigStore()],
      [{}, { VREDACT_BASE_URL: withPassword }, memoryConfigStore()],
      [{}, {}, memoryConfigStore({ 'base-url': withPassword })],
    ] as const) {
      const settings = resolveSettings({ ...flags, token: 'vr_0123456789abcdef' }, env, store);
      expect(settings.problems['base-url']).toContain('must not contain a user name or password');
      let message = '';
      try {
        requireService(settings);
      } catch (error) {
        message = `${(error as Error).message} ${(error as { hint?: string }).hint}`;
        expect(error).toMatchObject({ exitCode: 2 });
      }
      expect(message).toContain('http://***@127.0.0.1:8787');
      expect(message).not.toContain('hunter2');
    }
    expect(() => validateBaseUrl('https://only-user@api.example.com', false)).toThrow(
      /user name or password/,
    );
  });
});

describe('bad values from the environment or the config file', () => {
  test('when read, say how to fix them: the variable to correct or unset, or the config command', () => {
    // `jobs list` stopped on "gender must be one of …" with no word of what to do, or where.
    const settings = resolveSettings(
      {},
      { VREDACT_CONCURRENCY: '99', VREDACT_MAX_THROTTLE_WAIT: 'soon' },
      memoryConfigStore({ gender: 'x', concurrency: '2' }),
    );
    expect(() => settings.concurrency).toThrowError(
      expect.objectContaining({ hint: 'correct VREDACT_CONCURRENCY, or unset it' }),
    );
    expect(() => settings.maxThrottleWaitMs).toThrowError(
      expect.objectContaining({ hint: 'correct VREDACT_MAX_THROTTLE_WAIT, or unset it' }),
    );
    expect(() => settings.voice).toThrowError(
      expect.objectContaining({
        hint: 'correct it with `vredact config set gender …`, or remove it with `vredact config unset gender`',
      }),
    );
    const fromFile = resolveSettings({}, {}, memoryConfigStore({ concurrency: '0' }));
    expect(() => fromFile.concurrency).toThrowError(
      expect.objectContaining({
        hint: 'correct it with `vredact config set concurrency …`, or remove it with `vredact config unset concurrency`',
      }),
    );
  });

  test('are kept as problems and throw only when read; a bad flag throws at once', () => {
    const settings = resolveSettings(
      {},
      { VREDACT_CONCURRENCY: '99', VREDACT_MAX_THROTTLE_WAIT: 'soon' },
      memoryConfigStore({ gender: 'x' }),
    );
    expect(settings.problems.concurrency).toBe(
      'concurrency (from VREDACT_CONCURRENCY) must be a whole number from 1 to 64 (got "99")',
    );
    expect(settings.problems.gender).toBe(
      'gender must be one of same, opposite, random, f, m (got "x") (from the config file)',
    );
    expect(settings.problems['max-throttle-wait']).toContain('VREDACT_MAX_THROTTLE_WAIT');
    expect(() => settings.concurrency).toThrow(expect.objectContaining({ exitCode: 2 }));
    expect(() => settings.voice).toThrow(expect.objectContaining({ exitCode: 2 }));
    expect(() =>
      requireService({ ...settings, baseUrl: 'https://a.example', token: 'vr_0123456789ab' } as never),
    ).toThrow();
    expect(() => resolveSettings({ maxThrottleWait: 'soon' }, {}, memoryConfigStore())).toThrow(
      /--max-throttle-wait/,
    );
  });

  test('--max-throttle-wait and VREDACT_MAX_THROTTLE_WAIT take durations; the default is 30 minutes', () => {
    expect(resolveSettings({}, {}, memoryConfigStore()).maxThrottleWaitMs).toBe(30 * 60_000);
    expect(
      resolveSettings({}, { VREDACT_MAX_THROTTLE_WAIT: '90s' }, memoryConfigStore()).maxThrottleWaitMs,
    ).toBe(90_000);
    expect(
      resolveSettings({ maxThrottleWait: '2h' }, { VREDACT_MAX_THROTTLE_WAIT: '90s' }, memoryConfigStore())
        .maxThrottleWaitMs,
    ).toBe(7_200_000);
  });
});

describe('numbers are written as digits only', () => {
  // Number() took all of these: `-c 1e1` ran 10 at once, `config set concurrency 8.0` stored "8.0".
  const notDigits = ['1e1', '0x10', '8.0', ' 8', '8 ', '+8', '4x', ''];

  test.each(notDigits)('-c %j is refused at once', (text) => {
    expect(() => resolveSettings({ concurrency: text }, {}, memoryConfigStore())).toThrowError(
      expect.objectContaining({ exitCode: 2 }),
    );
  });

  test.each(notDigits.filter((text) => text !== ''))(
    'VREDACT_CONCURRENCY=%j is a problem, and refused when read',
    (text) => {
      const settings = resolveSettings({}, { VREDACT_CONCURRENCY: text }, memoryConfigStore());
      expect(settings.problems.concurrency).toMatch(/from VREDACT_CONCURRENCY/);
      expect(() => settings.concurrency).toThrowError(expect.objectContaining({ exitCode: 2 }));
    },
  );

  test.each(['', '1e1', '2.0', ' 3'])('--max-retries %j is refused (an empty one was 0 retries)', (text) => {
    expect(() => resolveSettings({ maxRetries: text }, {}, memoryConfigStore())).toThrow(/--max-retries/);
  });

  // Number() took these too: `--timeout 1e1` waited 10 s, `--timeout 0x10` 16 s.
  test.each(['1e1', '0x10', ' 5', '5 ', '+5', '.5', '5.', '1_000', 'Infinity', '0', '0.0', ''])(
    '--timeout %j is refused at once, saying what it takes',
    (text) => {
      expect(() => resolveSettings({ timeout: text }, {}, memoryConfigStore())).toThrowError(
        expect.objectContaining({
          exitCode: 2,
          message: `--timeout must be a positive number of seconds, in digits (like 30 or 0.5) (got "${text}")`,
        }),
      );
    },
  );

  test('--timeout takes plain digits, with a decimal fraction', () => {
    expect(resolveSettings({ timeout: '30' }, {}, memoryConfigStore()).timeoutMs).toBe(30_000);
    expect(resolveSettings({ timeout: '0.5' }, {}, memoryConfigStore()).timeoutMs).toBe(500);
    expect(resolveSettings({ timeout: '007' }, {}, memoryConfigStore()).timeoutMs).toBe(7_000);
  });

  test('plain digits still pass, leading zeros included', () => {
    expect(resolveSettings({ concurrency: '08' }, {}, memoryConfigStore()).concurrency).toBe(8);
    expect(resolveSettings({ maxRetries: '0' }, {}, memoryConfigStore()).maxRetries).toBe(0);
  });
});

describe('a flag given an empty value', () => {
  // `--base-url "$URL"` with URL unset went on to the config file's service, and `--token ""` to its token.
  const store = memoryConfigStore({ 'base-url': 'https://config.example', token: 'vr_config_token_0000' });
  test.each<[keyof Parameters<typeof resolveSettings>[0], string]>([
    ['baseUrl', '--base-url'],
    ['token', '--token'],
    ['concurrency', '--concurrency'],
    ['outDir', '--out-dir'],
    // These two were taken as not given: `--avatar "$AVATAR"` sent the service's default voice, and
    // `--max-throttle-wait ""` was blamed on VREDACT_MAX_THROTTLE_WAIT.
    ['avatar', '--avatar'],
    ['maxThrottleWait', '--max-throttle-wait'],
  ])('%s: a usage error naming %s, never the next source', (flag, name) => {
    expect(() => resolveSettings({ [flag]: '' }, {}, store)).toThrowError(
      expect.objectContaining({ exitCode: 2, message: `${name} was given an empty value` }),
    );
  });

  test('the hint of an empty --out-dir promises no config file: download does not read one', () => {
    expect(() => resolveSettings({ outDir: '' }, {}, store)).toThrowError(
      expect.objectContaining({ hint: 'give it a folder, or leave the flag out for the default folder' }),
    );
  });
});

describe('base URLs with a query or a fragment', () => {
  test.each([
    'https://api.example.com/?sig=s3cret',
    'https://api.example.com/v1?x=1',
    'https://api.example.com#top',
  ])('%s is refused without repeating the query', (url) => {
    expect(() => validateBaseUrl(url, false)).toThrow(/must not hold a query \(\?…\) or a fragment \(#…\)/);
    const settings = resolveSettings({}, { VREDACT_BASE_URL: url }, memoryConfigStore());
    expect(settings.problems['base-url']).toMatch(/must not hold a query/);
    expect(settings.problems['base-url']).not.toContain('s3cret');
  });

  test('is shown without its query wherever it is shown: config list, and the user-information error', () => {
    // `config list` printed `?sig=s3cret`, and so did the error of a URL that also held a password.
    expect(displayBaseUrl('https://api.example.com/v1?sig=s3cret#top')).toBe('https://api.example.com/v1?…');
    expect(displayBaseUrl('https://api.example.com/#s3cret')).toBe('https://api.example.com/#…');
    expect(displayBaseUrl('https://u:pw@api.example.com/?sig=s3cret')).toBe('https://***@api.example.com/?…');
    const settings = resolveSettings(
      {},
      {},
      memoryConfigStore({ 'base-url': 'https://u:pw@api.example.com/?sig=s3cret' }),
    );
    expect(settings.problems['base-url']).toMatch(/must not contain a user name or password/);
    expect(settings.problems['base-url']).not.toContain('s3cret');
  });

  test('a path prefix, with or without a trailing slash, is kept', () => {
    expect(validateBaseUrl('https://api.example.com/prefix/', false).pathname).toBe('/prefix/');
  });
});
