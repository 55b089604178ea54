import { existsSync, statSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { CONFIG_KEYS, isConfigKey } from '../../src/settings/config-keys.js';
import { configFilePath, memoryConfigStore, openConfigStore } from '../../src/settings/config-store.js';
import { tempDirPerTest } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-config-store-');

describe('openConfigStore', () => {
  it('keeps values in a file under VREDACT_CONFIG_DIR, readable again by a new store', async () => {
    const store = await openConfigStore({ VREDACT_CONFIG_DIR: dir.path });
    expect(store.path.startsWith(dir.path)).toBe(true);
    expect(store.all()).toEqual({});
    await store.set('base-url', 'https://api.example.com');
    await store.set('concurrency', '8');
    expect(store.get('base-url')).toBe('https://api.example.com');

    const again = await openConfigStore({ VREDACT_CONFIG_DIR: dir.path });
    expect(again.all()).toEqual({ 'base-url': 'https://api.example.com', concurrency: '8' });
    await again.delete('concurrency');
    expect((await openConfigStore({ VREDACT_CONFIG_DIR: dir.path })).get('concurrency')).toBeUndefined();
    expect(JSON.parse(await readFile(store.path, 'utf8'))).toEqual({ 'base-url': 'https://api.example.com' });
  });

  it('setAll writes several keys at once, kept beside the others, private', async () => {
    const store = await openConfigStore({ VREDACT_CONFIG_DIR: dir.path });
    await store.set('gender', 'f');
    await store.setAll({ token: 'vr_test_0123456789abcdef', 'base-url': 'https://api.example.com' });
    expect(store.get('token')).toBe('vr_test_0123456789abcdef');
    expect(JSON.parse(await readFile(store.path, 'utf8'))).toEqual({
      gender: 'f',
      token: 'vr_test_0123456789abcdef',
      'base-url': 'https://api.example.com',
    });
    if (process.platform !== 'win32') expect(statSync(store.path).mode & 0o777).toBe(0o600);
  });

  it.skipIf(process.platform === 'win32')(
    'the file holding the token is private, even one made wider by hand',
    async () => {
      const store = await openConfigStore({ VREDACT_CONFIG_DIR: dir.path });
      await store.set('token', 'vr_test_0123456789abcdef');
      expect(statSync(store.path).mode & 0o777).toBe(0o600);
      await chmod(store.path, 0o644);
      await store.set('gender', 'f');
      expect(statSync(store.path).mode & 0o777).toBe(0o600);
    },
  );

  it.skipIf(process.platform === 'win32')(
    'the folders it makes for the file are private even under umask 000: nobody else can swap the file',
    async () => {
      const folder = join(dir.path, 'home', 'config', 'vredact');
      const before = process.umask(0);
      try {
        const store = await openConfigStore({ VREDACT_CONFIG_DIR: folder });
        await store.set('token', 'vr_test_0123456789abcdef');
        expect(statSync(store.path).mode & 0o777).toBe(0o600);
      } finally {
        process.umask(before);
      }
      for (const made of [folder, join(dir.path, 'home', 'config'), join(dir.path, 'home')])
        expect(statSync(made).mode & 0o777).toBe(0o700);
    },
  );

  it('all() lists only the known keys; a number written by hand is read as its digits, null as unset', async () => {
    const store = await openConfigStore({ VREDACT_CONFIG_DIR: dir.path });
    await store.set('model', 'mini');
    const raw = JSON.parse(await readFile(store.path, 'utf8'));
    await writeFile(store.path, JSON.stringify({ ...raw, stray: 'x', concurrency: 8, gender: null }));
    // `"concurrency": 8` was dropped without a word, and the run went on at 4.
    expect((await openConfigStore({ VREDACT_CONFIG_DIR: dir.path })).all()).toEqual({
      model: 'mini',
      concurrency: '8',
    });
  });

  it.each([
    ['token', true, 'true or false'],
    ['gender', ['f'], 'a list'],
    ['base-url', { host: 'x' }, 'an object'],
  ])('a %s that is %j is a usage error naming the file and the key', async (key, value, what) => {
    const path = (await configFilePath({ VREDACT_CONFIG_DIR: dir.path }))!;
    await writeFile(path, JSON.stringify({ [key]: value }));
    await expect(openConfigStore({ VREDACT_CONFIG_DIR: dir.path })).rejects.toThrowError(
      expect.objectContaining({
        exitCode: 2,
        message: `the config file ${path} holds ${what} as ${key}, where a setting is text`,
        hint: expect.stringMatching(/^correct it, or delete it/),
      }),
    );
  });
});

describe('reading the config file', () => {
  it("without a home folder, is in XDG_CONFIG_HOME where it is set (env-paths' rule on Linux), else none", async () => {
    const xdg = { XDG_CONFIG_HOME: join(dir.path, 'xdg') };
    expect(await configFilePath(xdg, null, 'linux')).toBe(join(dir.path, 'xdg', 'vredact', 'config.json'));
    expect(await configFilePath({ ...xdg, VREDACT_CONFIG_DIR: dir.path }, null, 'linux')).toBe(
      join(dir.path, 'config.json'),
    );
    expect(await configFilePath({}, null, 'linux')).toBeUndefined();
    expect(await configFilePath({ XDG_CONFIG_HOME: '' }, null, 'linux')).toBeUndefined();
    // macOS's and Windows' config folders are no XDG folder.
    expect(await configFilePath(xdg, null, 'darwin')).toBeUndefined();
  });

  it('ignores a relative XDG_CONFIG_HOME, as the XDG rule says: the file does not move with the current folder', async () => {
    const home = join(dir.path, 'home');
    const inHome = join(home, '.config', 'vredact', 'config.json');
    for (const relative of ['cfg', './cfg', 'cfg/']) {
      expect(await configFilePath({ XDG_CONFIG_HOME: relative }, home, 'linux'), relative).toBe(inHome);
      expect(await configFilePath({ XDG_CONFIG_HOME: relative }, null, 'linux'), relative).toBeUndefined();
    }
    const xdg = join(dir.path, 'xdg');
    expect(await configFilePath({ XDG_CONFIG_HOME: `${xdg}/` }, home, 'linux')).toBe(
      join(xdg, 'vredact', 'config.json'),
    );
    expect(await configFilePath({ XDG_CONFIG_HOME: '' }, home, 'linux')).toBe(inHome);
  });

  it('is the file conf writes: config.json in VREDACT_CONFIG_DIR, a relative one from the current folder', async () => {
    const { default: Conf } = await import('conf');
    const conf = new Conf({ projectName: 'vredact', projectSuffix: '', cwd: dir.path });
    expect(await configFilePath({ VREDACT_CONFIG_DIR: dir.path })).toBe(conf.path);
    expect(await configFilePath({ VREDACT_CONFIG_DIR: 'cfg' })).toBe(
      join(process.cwd(), 'cfg', 'config.json'),
    );
  });

  it('a missing file holds nothing, and reading it creates no folder', async () => {
    const folder = join(dir.path, 'not-yet');
    const store = await openConfigStore({ VREDACT_CONFIG_DIR: folder });
    expect(store.all()).toEqual({});
    expect(existsSync(folder)).toBe(false);
    await store.set('gender', 'f');
    expect(JSON.parse(await readFile(join(folder, 'config.json'), 'utf8'))).toEqual({ gender: 'f' });
  });

  it('a file saved with a UTF-8 byte-order mark (Notepad) is read, and written to, as the JSON it holds', async () => {
    const path = (await configFilePath({ VREDACT_CONFIG_DIR: dir.path }))!;
    const saved = '\uFEFF{\n  "base-url": "https://redaction.example.com",\n  "concurrency": "8"\n}\n';
    await writeFile(path, saved, 'utf8');
    const store = await openConfigStore({ VREDACT_CONFIG_DIR: dir.path });
    expect(store.all()).toEqual({ 'base-url': 'https://redaction.example.com', concurrency: '8' });
    // conf reads it again before it writes: the values already there are kept, not refused or cleared.
    await store.set('gender', 'f');
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({
      'base-url': 'https://redaction.example.com',
      concurrency: '8',
      gender: 'f',
    });
    expect((await openConfigStore({ VREDACT_CONFIG_DIR: dir.path })).get('gender')).toBe('f');
  });

  it('a file that is not JSON, not an object or not readable is a usage error naming it', async () => {
    const path = (await configFilePath({ VREDACT_CONFIG_DIR: dir.path }))!;
    const open = () => openConfigStore({ VREDACT_CONFIG_DIR: dir.path });
    await writeFile(path, '{"token": ');
    await expect(open()).rejects.toThrow(UsageError);
    await expect(open()).rejects.toThrow(`the config file ${path} is not JSON`);
    await writeFile(path, '["vr_x"]');
    await expect(open()).rejects.toThrow(`the config file ${path} is not a JSON object of settings`);
    await writeFile(path, 'null');
    await expect(open()).rejects.toThrow(/is not a JSON object/);
    const folderAtPath = join(dir.path, 'folder');
    await mkdir(join(folderAtPath, 'config.json'), { recursive: true });
    await expect(openConfigStore({ VREDACT_CONFIG_DIR: folderAtPath })).rejects.toThrow(
      `cannot read the config file ${join(folderAtPath, 'config.json')}: it is a folder, not a file`,
    );
  });
});

describe('keys and the memory store', () => {
  it('isConfigKey knows exactly the settable keys', () => {
    for (const key of CONFIG_KEYS) expect(isConfigKey(key)).toBe(true);
    for (const key of ['', 'Token', 'base_url', 'path']) expect(isConfigKey(key)).toBe(false);
  });

  it('memoryConfigStore behaves as the file store does', async () => {
    const store = memoryConfigStore({ token: 'vr_x' });
    await store.set('age', 'young-adult');
    await store.delete('token');
    expect(store.all()).toEqual({ age: 'young-adult' });
    expect(store.get('token')).toBeUndefined();
  });
});
