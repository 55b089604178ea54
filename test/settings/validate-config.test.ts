import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { checkConfigValue, parseConfigKey } from '../../src/settings/validate-config.js';

describe('config set checks', () => {
  it('a known key passes; an unknown one is a usage error listing the keys', () => {
    expect(parseConfigKey('base-url')).toBe('base-url');
    let thrown: unknown;
    try {
      parseConfigKey('baseurl');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as UsageError).message).toBe('unknown setting "baseurl"');
    expect((thrown as UsageError).hint).toContain('base-url, token, concurrency');
  });

  it('a base URL is stored without its trailing slash; plain http only for a loopback host or when allowed', () => {
    expect(checkConfigValue('base-url', 'https://api.example.com/', false)).toBe('https://api.example.com');
    expect(checkConfigValue('base-url', 'http://127.0.0.1:8787', false)).toBe('http://127.0.0.1:8787');
    expect(() => checkConfigValue('base-url', 'http://api.example.com', false)).toThrow(UsageError);
    expect(checkConfigValue('base-url', 'http://api.example.com', true)).toBe('http://api.example.com');
    expect(() => checkConfigValue('base-url', 'not a url', true)).toThrow(UsageError);
  });

  it.each<[Parameters<typeof checkConfigValue>[0], string]>([
    ['concurrency', '0'],
    ['concurrency', '65'],
    ['concurrency', 'many'],
    ['gender', 'x'],
    ['model', 'huge'],
    ['token', ''],
  ])('%s=%j is refused as a usage error', (key, value) => {
    expect(() => checkConfigValue(key, value, false)).toThrow(UsageError);
  });

  it('names a bad target voice by its key, as `config set` was given it, not as a flag', () => {
    expect(() => checkConfigValue('gender', 'x', false)).toThrow(/^gender must be one of same, opposite/);
    expect(() => checkConfigValue('model', 'huge', false)).toThrow(/^model must be one of mini, advanced/);
  });

  it.each<[Parameters<typeof checkConfigValue>[0], string]>([
    ['concurrency', '64'],
    ['gender', 'opposite'],
    ['model', 'advanced'],
    ['out-dir', 'redacted'],
    ['token', 'vr_anything'],
  ])('%s=%j is kept as it is', (key, value) => {
    expect(checkConfigValue(key, value, false)).toBe(value);
  });
});

describe('config set concurrency', () => {
  it.each(['8.0', '1e1', '0x10', ' 8'])('%j is refused, not stored as it was typed', (value) => {
    expect(() => checkConfigValue('concurrency', value, false)).toThrow(UsageError);
  });
});
