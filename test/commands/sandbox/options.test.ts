import { describe, expect, test } from 'vitest';
import { parseSandboxFlags } from '../../../src/commands/sandbox/options.js';
import { UsageError } from '../../../src/errors.js';

const DEFAULTS = {
  port: '8787',
  host: '127.0.0.1',
  filesPort: '0',
  token: [],
  syncLimit: '30',
  speed: '1',
  failRate: '0',
  latency: '0',
  seed: '1',
};

describe('vredact sandbox flags', () => {
  test('the defaults', () => {
    expect(parseSandboxFlags(DEFAULTS, '/work')).toEqual({
      host: '127.0.0.1',
      port: 8787,
      filesPort: 0,
      tokens: [],
      syncLimitSec: 30,
      speed: 1,
      failRate: 0,
      latencyMs: 0,
      seed: 1,
    });
  });

  test('an empty --data-dir is a usage error, not a temporary folder that goes with the sandbox', () => {
    // `--data-dir "$DIR"` with DIR unset kept the jobs in a temporary folder, removed on exit.
    expect(() => parseSandboxFlags({ ...DEFAULTS, dataDir: '' }, '/work')).toThrowError(
      expect.objectContaining({ exitCode: 2, message: '--data-dir was given an empty value' }),
    );
  });

  test('repeated tokens, a data dir relative to the working folder', () => {
    const options = parseSandboxFlags(
      { ...DEFAULTS, token: ['a_1', 'b_2'], dataDir: 'state' },
      '/srv/project',
    );
    expect(options.tokens).toEqual(['a_1', 'b_2']);
    expect(options.dataDir).toBe('/srv/project/state');
  });

  test.each([
    ['port', 'abc'],
    ['port', '70000'],
    ['port', '-1'],
    ['filesPort', '1.5'],
    ['host', '0.0.0.0'],
    ['host', 'example.com'],
    ['syncLimit', '-1'],
    ['speed', '0'],
    ['failRate', '1.5'],
    ['latency', '-5'],
    ['seed', 'x'],
    ['token', ['has space']],
  ])('%s=%j is a usage error', (key, value) => {
    expect(() => parseSandboxFlags({ ...DEFAULTS, [key]: value }, '/work')).toThrow(UsageError);
  });

  test('the two ports must differ', () => {
    expect(() => parseSandboxFlags({ ...DEFAULTS, port: '9000', filesPort: '9000' }, '/work')).toThrow(
      UsageError,
    );
  });
});
