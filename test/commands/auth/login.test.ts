import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runLogin } from '../../../src/commands/auth/login.js';
import type { ConfigKey } from '../../../src/settings/config-keys.js';
import { type ConfigStore, openConfigStore } from '../../../src/settings/config-store.js';
import { tempDirPerTest } from '../../helpers/cli.js';
import { testContext } from '../../helpers/context.js';
import { sendJson, startScriptedServer } from '../../helpers/scripted-server.js';

const TOKEN = 'vr_login_0123456789abcdef';
const dir = tempDirPerTest('vredact-login-');

/** The config file on disk after each write the store makes: what a crash after that write leaves. */
function observedWrites(store: ConfigStore): { store: ConfigStore; files: Array<Record<string, string>> } {
  const files: Array<Record<string, string>> = [];
  const observe =
    <A extends unknown[]>(write: (...args: A) => Promise<void>) =>
    async (...args: A) => {
      await write(...args);
      files.push(JSON.parse(await readFile(store.path, 'utf8')) as Record<string, string>);
    };
  return {
    files,
    store: {
      ...store,
      get: (key: ConfigKey) => store.get(key),
      all: () => store.all(),
      set: observe(store.set),
      setAll: observe(store.setAll),
      delete: observe(store.delete),
    },
  };
}

describe('login', () => {
  it.each([
    ['no base-url', {}],
    ['the base-url of another service', { 'base-url': 'https://other.example' }],
  ])(
    'stores the token and the base-url it was checked with in one write, over a config file with %s',
    async (_, before) => {
      const server = await startScriptedServer((_req, res) => sendJson(res, 200, { jobs: [] }));
      try {
        const real = await openConfigStore({ VREDACT_CONFIG_DIR: dir.path });
        if (Object.keys(before).length > 0) await real.setAll(before);
        const { store, files } = observedWrites(real);
        const { ctx } = await testContext({
          env: { VREDACT_BASE_URL: server.baseUrl },
          config: store,
          stdin: TOKEN,
        });
        expect(await runLogin(ctx, [], { tokenStdin: true })).toBe(0);
        // Every state of the file a crash could leave holds both or neither, never one alone.
        expect(files).toEqual([{ token: TOKEN, 'base-url': server.baseUrl }]);
        expect(server.received.map((request) => request.url)).toEqual(['/api/jobs']);
      } finally {
        await server.close();
      }
    },
  );
});
