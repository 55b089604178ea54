import { describe, expect, it } from 'vitest';
import { parseStatsInterval, type TerminalFlags } from '../src/context.js';
import { UsageError } from '../src/errors.js';
import type { CommandFlags } from '../src/settings/settings.js';
import { testContext } from './helpers/context.js';

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
  const make = async (flags: CommandFlags & TerminalFlags, env: NodeJS.ProcessEnv = {}) =>
    (await testContext({ flags, env, tty: true, columns: 100 })).ctx;

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
