import { describe, expect, test } from 'vitest';
import {
  runConfigGet,
  runConfigList,
  runConfigSet,
  runConfigUnset,
} from '../../../src/commands/config/config.js';
import { memoryConfigStore } from '../../../src/settings/config-store.js';
import { testContext } from '../../helpers/context.js';

const TOKEN = 'vr_0123456789abcdef9f3a';

describe('vredact config (in-process)', () => {
  test('set token from stdin stores it whole, get and list show it masked', async () => {
    const config = memoryConfigStore();
    const set = await testContext({ config, stdin: `${TOKEN}\n` });
    expect(await runConfigSet(set.ctx, ['token', '-'])).toBe(0);
    expect(config.get('token')).toBe(TOKEN);

    const get = await testContext({ config });
    expect(await runConfigGet(get.ctx, ['token'])).toBe(0);
    expect(get.stdout()).toBe('vr_…9f3a\n');

    const list = await testContext({ config, flags: { json: true } });
    await runConfigList(list.ctx);
    const rows = JSON.parse(list.stdout()) as { key: string; value: string | null; source: string }[];
    expect(rows.find((r) => r.key === 'token')).toEqual({
      key: 'token',
      value: 'vr_…9f3a',
      source: 'config',
    });
    expect(list.stdout() + list.stderr()).not.toContain(TOKEN);
  });

  test('list shows where each value comes from', async () => {
    const config = memoryConfigStore({ 'base-url': 'https://config.example' });
    const list = await testContext({ config, env: { VREDACT_CONCURRENCY: '7' } });
    await runConfigList(list.ctx);
    const lines = list.stdout().trim().split('\n');
    expect(lines).toContain('base-url\thttps://config.example\tconfig');
    expect(lines).toContain('concurrency\t7\tenv');
    expect(lines).toContain('gender\t\tunset');
  });

  test('list says the same source in its lines and in --json: unset for no value, default for a default', async () => {
    const plain = await testContext({});
    await runConfigList(plain.ctx);
    const lines = plain.stdout().trim().split('\n');
    expect(lines).toContain('gender\t\tunset');
    expect(lines).toContain('concurrency\t4\tdefault');
    const json = await testContext({ flags: { json: true } });
    await runConfigList(json.ctx);
    const rows = JSON.parse(json.stdout()) as { key: string; value: string | null; source: string }[];
    expect(rows.find((r) => r.key === 'gender')).toEqual({ key: 'gender', value: null, source: 'unset' });
    expect(rows.find((r) => r.key === 'concurrency')).toEqual({
      key: 'concurrency',
      value: '4',
      source: 'default',
    });
  });

  test('on a terminal, list is a table', async () => {
    const list = await testContext({ tty: true, env: { NO_COLOR: '1' } });
    await runConfigList(list.ctx);
    expect(list.stdout()).toMatch(/KEY.*VALUE.*SOURCE/);
    expect(list.stdout()).toContain('┌');
  });

  test('values are checked before they are stored', async () => {
    const config = memoryConfigStore();
    const t = await testContext({ config });
    await expect(runConfigSet(t.ctx, ['base-url', 'http://api.example.com'])).rejects.toMatchObject({
      exitCode: 2,
    });
    await expect(runConfigSet(t.ctx, ['gender', 'x'])).rejects.toMatchObject({ exitCode: 2 });
    await expect(runConfigSet(t.ctx, ['nope', '1'])).rejects.toMatchObject({ exitCode: 2 });
    expect(config.all()).toEqual({});
    await runConfigSet(t.ctx, ['base-url', 'https://api.example.com/']);
    expect(config.get('base-url')).toBe('https://api.example.com');
  });

  test('unset removes a key; get of an unset key fails with exit 1', async () => {
    const config = memoryConfigStore({ gender: 'f' });
    const t = await testContext({ config });
    await runConfigUnset(t.ctx, ['gender']);
    expect(config.get('gender')).toBeUndefined();
    const get = await testContext({ config });
    await expect(runConfigGet(get.ctx, ['gender'])).rejects.toMatchObject({ exitCode: 1 });
  });

  test('get --json of an unset key fails as get does: nothing on stdout, the error for stderr', async () => {
    // It printed {"value": null, …} and exited 1 with no word on stderr of what had failed.
    const get = await testContext({ flags: { json: true } });
    await expect(runConfigGet(get.ctx, ['gender'])).rejects.toMatchObject({
      exitCode: 1,
      message: 'gender is not set',
    });
    expect(get.stdout()).toBe('');
  });

  test('get token with none set points to login, and to config set token - for scripts', async () => {
    const get = await testContext();
    const failure = (await runConfigGet(get.ctx, ['token']).catch((error: unknown) => error)) as {
      exitCode: number;
      message: string;
      hint: string;
    };
    expect(failure).toMatchObject({ exitCode: 1, message: 'token is not set' });
    expect(failure.hint).toMatch(/^run `vredact login`/);
    expect(failure.hint).toContain('`vredact config set token -`');
    expect(failure.hint).not.toContain('config set token …');
  });
});

describe('vredact config with bad or secret-bearing values', () => {
  test('list shows a bad environment value and says what is wrong, instead of failing', async () => {
    const list = await testContext({ env: { VREDACT_CONCURRENCY: '99' } });
    expect(await runConfigList(list.ctx)).toBe(0);
    expect(list.stdout()).toContain('concurrency\t99\tenv');
    expect(list.stderr()).toContain(
      'warning: concurrency: concurrency (from VREDACT_CONCURRENCY) must be a whole number from 1 to 64',
    );
    // Not only the commands that use it: `jobs list` refuses too ("commands that use it", it said).
    expect(list.stderr()).toContain('; commands that talk to the service refuse to run until it is fixed');
    const json = await testContext({ env: { VREDACT_CONCURRENCY: '99' }, flags: { json: true } });
    await runConfigList(json.ctx);
    const rows = JSON.parse(json.stdout()) as { key: string; problem?: string }[];
    expect(rows.find((row) => row.key === 'concurrency')?.problem).toContain('from 1 to 64');
  });

  test('a bad voice value in the config file is listed with its problem; the good ones still show', async () => {
    // A hand-edited file, or one a later version wrote: config is where the user looks to fix it.
    const config = memoryConfigStore({ gender: 'zz', language: 'fr' });
    const list = await testContext({ config });
    expect(await runConfigList(list.ctx)).toBe(0);
    expect(list.stdout()).toContain('gender\tzz\tconfig');
    expect(list.stdout()).toContain('language\tfr\tconfig');
    expect(list.stderr()).toContain('warning: gender: gender must be one of');

    const get = await testContext({ config });
    expect(await runConfigGet(get.ctx, ['language'])).toBe(0);
    expect(get.stdout()).toBe('fr\n');
  });

  test('a base URL with a password is refused by set and never shown by get or list', async () => {
    const config = memoryConfigStore();
    const set = await testContext({ config });
    const failure = await runConfigSet(set.ctx, ['base-url', 'http://user:hunter2@127.0.0.1:9']).catch(
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ exitCode: 2 });
    expect(String((failure as Error).message)).not.toContain('hunter2');
    expect(config.all()).toEqual({});

    const stored = memoryConfigStore({ 'base-url': 'http://user:hunter2@127.0.0.1:9' });
    const get = await testContext({ config: stored });
    await runConfigGet(get.ctx, ['base-url']);
    const list = await testContext({ config: stored, flags: { json: true } });
    await runConfigList(list.ctx);
    for (const out of [get.stdout(), get.stderr(), list.stdout(), list.stderr()])
      expect(out).not.toContain('hunter2');
    expect(get.stdout()).toBe('http://***@127.0.0.1:9\n');
  });

  test('a bad base URL given as a flag is shown masked with its problem, not as unset', async () => {
    const flags = { baseUrl: 'https://user:hunter2@api.example.com' };
    const get = await testContext({ flags });
    expect(await runConfigGet(get.ctx, ['base-url'])).toBe(0);
    expect(get.stdout()).toBe('https://***@api.example.com\n');
    expect(get.stderr()).toContain('warning: base-url: the service URL must not contain a user name');

    const list = await testContext({ flags: { ...flags, json: true } });
    await runConfigList(list.ctx);
    const rows = JSON.parse(list.stdout()) as { key: string; value: string | null; source: string }[];
    expect(rows.find((row) => row.key === 'base-url')).toMatchObject({
      value: 'https://***@api.example.com',
      source: 'flag',
    });
    for (const out of [get.stdout(), get.stderr(), list.stdout(), list.stderr()])
      expect(out).not.toContain('hunter2');
  });

  test('a token that cannot be sent (two lines in VREDACT_TOKEN) is listed masked, with its problem', async () => {
    const env = { VREDACT_TOKEN: 'vr_line_one_0000\nsecond_line_1111' };
    const list = await testContext({ env });
    expect(await runConfigList(list.ctx)).toBe(0);
    expect(list.stdout()).toContain('token\tvr_…1111\tenv');
    expect(list.stderr()).toContain(
      'warning: token: the usage token (from VREDACT_TOKEN) cannot be used: it holds a line break',
    );
    const get = await testContext({ env, flags: { json: true } });
    await runConfigGet(get.ctx, ['token']);
    expect(JSON.parse(get.stdout())).toMatchObject({
      value: 'vr_…1111',
      problem: expect.stringContaining('line break'),
    });
    for (const out of [list.stdout(), list.stderr(), get.stdout()])
      expect(out).not.toMatch(/line_one|second_line/);
  });

  test('a base URL ending in /api is stored with a warning', async () => {
    const set = await testContext();
    await runConfigSet(set.ctx, ['base-url', 'https://api.example.com/api']);
    expect(set.stderr()).toContain('should not end in /api');
  });
});
