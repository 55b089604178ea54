import { describe, expect, test } from 'vitest';
import { parseSandboxFlags } from '../../../src/commands/sandbox/options.js';
import { UsageError } from '../../../src/errors.js';
import { BadValueError } from '../../../src/settings/bad-value.js';

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

  test.each([
    ['port', '--port', '1e3', 'a port number from 0 to 65535'],
    ['port', '--port', '0x50', 'a port number from 0 to 65535'],
    ['port', '--port', '80.0', 'a port number from 0 to 65535'],
    ['port', '--port', ' 80', 'a port number from 0 to 65535'],
    ['filesPort', '--files-port', '1e3', 'a port number from 0 to 65535'],
    ['latency', '--latency', '1e3', '0 or more milliseconds'],
    ['syncLimit', '--sync-limit', '0x10', '0 or more seconds'],
    ['speed', '--speed', '1e2', 'a number above 0'],
    ['failRate', '--fail-rate', '5e-1', 'a number from 0 to 1'],
    ['seed', '--seed', '0x10', 'a whole number'],
  ])(
    '%s %s %j: digits only, as every number typed by the user (Number() took it)',
    (key, flag, text, takes) => {
      // `--port 1e3` listened on 1000, `--port 0x50` on 80.
      const parsing = () => parseSandboxFlags({ ...DEFAULTS, [key]: text }, '/work');
      expect(parsing).toThrow(BadValueError);
      expect(parsing).toThrow(`${flag} must be ${takes}`);
      expect(parsing).toThrow(`(got "${text}")`);
    },
  );

  test('a decimal fraction where one makes sense: seconds, a factor, a share', () => {
    expect(
      parseSandboxFlags({ ...DEFAULTS, syncLimit: '1.2', speed: '0.5', failRate: '0.25' }, '/work'),
    ).toMatchObject({ syncLimitSec: 1.2, speed: 0.5, failRate: 0.25 });
  });
});
