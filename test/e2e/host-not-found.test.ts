import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { fixture, isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';

/** A name reserved never to resolve (RFC 2606): its lookup fails with ENOTFOUND, never EAI_AGAIN. */
const NOWHERE = 'http://nonexistent.invalid';

const work = tempDirPerTest('vredact-host-not-found-');
const run = (words: string[], input?: string) =>
  runCli([...words, '--base-url', NOWHERE, '--allow-insecure-http', '-v'], {
    env: isolatedEnv(join(work.path, 'config'), { VREDACT_TOKEN: 'vr_test_token' }),
    cwd: work.path,
    ...(input === undefined ? {} : { input }),
  });
/** The requests a verbose run says it sent to the host that does not exist. */
const requests = (stderr: unknown) =>
  String(stderr).match(/^debug: (GET|POST) http:\/\/nonexistent\.invalid\//gm) ?? [];

describe('a service URL whose host does not exist', () => {
  test.each([
    ['login', ['login', '--token-stdin'], 'vr_test_token\n'],
    ['jobs list', ['jobs', 'list'], undefined],
    ['redact', ['redact', fixture('speech-16bit.wav'), '-o', 'out'], undefined],
  ])('%s fails at once: one attempt, no "still trying", the URL to check', async (_name, words, input) => {
    const result = await run(words, input);
    expect(result.exitCode).toBe(1);
    expect(requests(result.stderr)).toHaveLength(1);
    expect(String(result.stderr)).not.toContain('still trying');
    expect(String(result.stderr)).toMatch(/^error: .*the host nonexistent\.invalid was not found$/m);
    // Every command names where its URL came from (here --base-url), not the config command.
    expect(String(result.stderr)).toContain('hint: check the service URL (the URL given with --base-url)');
  });
});
