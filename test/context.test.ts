import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createContext, parseStatsInterval } from '../src/context.js';
import { UsageError } from '../src/errors.js';
import { memoryConfigStore } from '../src/settings/config-store.js';

function terminal() {
  const stream = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number };
  stream.isTTY = true;
  stream.columns = 100;
  return stream;
}

describe('parseStatsInterval', () => {
  it('reads an interval like --wait-timeout, and refuses anything else as a usage error', () => {
    expect(parseStatsInterval(undefined)).toBeUndefined();
    expect(parseStatsInterval('30s')).toBe(30_000);
    expect(parseStatsInterval('5m')).toBe(300_000);
    expect(parseStatsInterval('60')).toBe(60_000);
    for (const bad of ['', 'soon', '0', '10ms']) expect(() => parseStatsInterval(bad)).toThrow(UsageError);
  });
});

describe('the context builds the IOStreams from the flags', () => {
  const make = (flags: Parameters<typeof createContext>[0], env: NodeJS.ProcessEnv = {}) =>
    createContext(flags, {
      streams: { stdout: terminal(), stderr: terminal(), stdin: Readable.from([]) },
      env,
      config: memoryConfigStore(),
    });

  it('live progress on two terminals, off with --no-progress, --json or --quiet; --stats read', async () => {
    expect((await make({})).io.progress).toBe(true);
    expect((await make({ progress: false })).io.progress).toBe(false);
    expect((await make({ json: true })).io.progress).toBe(false);
    expect((await make({ quiet: true, stats: '1m' })).io).toMatchObject({
      progress: false,
      statsIntervalMs: 60_000,
    });
  });

  it('colour off with --no-color or NO_COLOR', async () => {
    expect((await make({})).io.color).toBe(true);
    expect((await make({ color: false })).io.color).toBe(false);
    expect((await make({}, { NO_COLOR: '1' })).io.color).toBe(false);
  });
});
