import { statSync } from 'node:fs';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  CONFIG_KEYS,
  isConfigKey,
  memoryConfigStore,
  openConfigStore,
} from '../../src/settings/config-store.js';
import { tempDirPerTest } from '../helpers/cli.js';

const dir = tempDirPerTest('vredact-config-store-');

describe('openConfigStore', () => {
  it('keeps values in a file under VREDACT_CONFIG_DIR, readable again by a new store', async () => {
    const store = await openConfigStore({ VREDACT_CONFIG_DIR: dir.path });
    expect(store.path.startsWith(dir.path)).toBe(true);
    expect(store.all()).toEqual({});
    store.set('base-url', 'https://api.example.com');
    store.set('concurrency', '8');
    expect(store.get('base-url')).toBe('https://api.example.com');

    const again = await openConfigStore({ VREDACT_CONFIG_DIR: dir.path });
    expect(again.all()).toEqual({ 'base-url': 'https://api.example.com', concurrency: '8' });
    again.delete('concurrency');
    expect((await openConfigStore({ VREDACT_CONFIG_DIR: dir.path })).get('concurrency')).toBeUndefined();
    expect(JSON.parse(await readFile(store.path, 'utf8'))).toEqual({ 'base-url': 'https://api.example.com' });
  });

  it.skipIf(process.platform === 'win32')(
    'the file holding the token is private, even one made wider by hand',
    async () => {
      const store = await openConfigStore({ VREDACT_CONFIG_DIR: dir.path });
      store.set('token', 'vr_test_0123456789abcdef');
      expect(statSync(store.path).mode & 0o777).toBe(0o600);
      await chmod(store.path, 0o644);
      store.set('gender', 'f');
      expect(statSync(store.path).mode & 0o777).toBe(0o600);
    },
  );

  it('all() lists only the known keys that hold strings', async () => {
    const store = await openConfigStore({ VREDACT_CONFIG_DIR: dir.path });
    store.set('model', 'mini');
    const raw = JSON.parse(await readFile(store.path, 'utf8'));
    await writeFile(store.path, JSON.stringify({ ...raw, stray: 'x', concurrency: 4 }));
    expect((await openConfigStore({ VREDACT_CONFIG_DIR: dir.path })).all()).toEqual({ model: 'mini' });
  });
});

describe('keys and the memory store', () => {
  it('isConfigKey knows exactly the settable keys', () => {
    for (const key of CONFIG_KEYS) expect(isConfigKey(key)).toBe(true);
    for (const key of ['', 'Token', 'base_url', 'path']) expect(isConfigKey(key)).toBe(false);
  });

  it('memoryConfigStore behaves as the file store does', () => {
    const store = memoryConfigStore({ token: 'vr_x' });
    store.set('age', 'young-adult');
    store.delete('token');
    expect(store.all()).toEqual({ age: 'young-adult' });
    expect(store.get('token')).toBeUndefined();
  });
});
