import { describe, expect, test } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { SIGNED_URL_TTL_SEC } from '../../src/sandbox/limits.js';
import {
  bindAddress,
  DEFAULT_PORT,
  DEFAULT_SYNC_LIMIT_SEC,
  resolveOptions,
  type SandboxOptions,
  urlHost,
} from '../../src/sandbox/options.js';

const generated = () => 'vr_sandbox_generated';

describe('resolveOptions', () => {
  test('the defaults, and one generated token when none is given', () => {
    const resolved = resolveOptions({}, generated);
    expect(resolved).toMatchObject({
      port: DEFAULT_PORT,
      host: '127.0.0.1',
      filesPort: 0,
      tokens: ['vr_sandbox_generated'],
      syncLimitSec: DEFAULT_SYNC_LIMIT_SEC,
      speed: 1,
      dataDir: undefined,
      failRate: 0,
      latencyMs: 0,
      rateLimit: undefined,
      seed: 1,
      signedUrlTtlSec: SIGNED_URL_TTL_SEC,
    });
    expect(() => resolved.onWarning('ignored')).not.toThrow();
  });

  test('given tokens are kept as given (a copy), and no token is generated', () => {
    const tokens = ['vr_a_1', 'vr_b_2'];
    let calls = 0;
    const resolved = resolveOptions({ tokens }, () => {
      calls++;
      return 'never';
    });
    expect(resolved.tokens).toEqual(tokens);
    expect(resolved.tokens).not.toBe(tokens);
    expect(calls).toBe(0);
  });

  test.each<[SandboxOptions, RegExp]>([
    [{ host: '0.0.0.0' }, /--host must be a loopback address/],
    [{ host: 'example.com' }, /--host/],
    [{ port: 65_536 }, /--port must be a port number/],
    [{ port: 1.5 }, /--port/],
    [{ filesPort: -1 }, /--files-port/],
    [{ port: 9000, filesPort: 9000 }, /--port and --files-port must differ/],
    [{ tokens: ['has space'] }, /--token must be printable ASCII/],
    [{ syncLimitSec: -1 }, /--sync-limit/],
    [{ speed: 0 }, /--speed must be a number above 0/],
    [{ speed: Number.POSITIVE_INFINITY }, /--speed/],
    [{ failRate: 1.5 }, /--fail-rate/],
    [{ latencyMs: Number.NaN }, /--latency/],
    [{ seed: 0.5 }, /--seed must be a whole number/],
    [{ signedUrlTtlSec: 1.5 }, /signed URL lifetime/],
  ])('%j is refused with a RangeError naming the flag', (options, message) => {
    let thrown: unknown;
    try {
      resolveOptions(options, generated);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RangeError);
    expect((thrown as Error).message).toMatch(message);
  });

  test('both ports 0 may coincide (each picks a free one); a negative signed-URL lifetime is allowed', () => {
    expect(resolveOptions({ port: 0, filesPort: 0, signedUrlTtlSec: -60 }, generated)).toMatchObject({
      port: 0,
      filesPort: 0,
      signedUrlTtlSec: -60,
    });
  });

  test('startSandbox refuses a non-loopback host before listening', async () => {
    await expect(startSandbox({ port: 0, host: '0.0.0.0' })).rejects.toThrow(/loopback/);
    await expect(startSandbox({ port: 0, host: '192.168.1.10' })).rejects.toThrow(/loopback/);
  });
});

test.each([
  ['localhost', '127.0.0.1'],
  ['[::1]', '::1'],
  ['::1', '::1'],
  ['127.0.0.2', '127.0.0.2'],
])('bindAddress(%j) is %j', (host, address) => {
  expect(bindAddress(host)).toBe(address);
});

test.each([
  ['127.0.0.1', 8787, '127.0.0.1:8787'],
  ['::1', 9000, '[::1]:9000'],
])('urlHost(%j, %d) is %j', (address, port, expected) => {
  expect(urlHost(address, port)).toBe(expected);
});
