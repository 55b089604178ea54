/**
 * The config file holds the token, and vredact makes it 0600 only when it writes it: a copy made by
 * hand or restored from a backup (0644) is warned about by every command until it is private again.
 */
import { chmod, chown, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { type ScriptedServer, sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'vr_config_file_0123456789abcdef';
const work = tempDirPerTest('vredact-config-mode-');

/**
 * A service answering an empty job listing, with where a test's config folder and file go; the
 * server closed and the folder made private again after `body` (a test leaves it 0777 or sticky).
 */
async function withListingService(
  body: (at: { server: ScriptedServer; dir: string; path: string }) => Promise<void>,
): Promise<void> {
  const server = await startScriptedServer((_req, res) => sendJson(res, 200, { jobs: [] }));
  const dir = join(work.path, 'cfg');
  try {
    await body({ server, dir, path: join(dir, 'config.json') });
  } finally {
    await chmod(dir, 0o700).catch(() => undefined);
    await server.close();
  }
}

test.skipIf(process.platform === 'win32')(
  'a config file with the token that others can read: each command warns, with the chmod; a private one, or one with no token, does not',
  async () => {
    await withListingService(async ({ server, dir, path }) => {
      const env = isolatedEnv(dir);
      await mkdir(dir);
      await writeFile(path, JSON.stringify({ 'base-url': server.baseUrl, token: TOKEN }));
      await chmod(path, 0o644);
      const warning = `warning: the config file ${path} holds the token and is not private (mode 0644: other users can read or change it); run \`chmod 600 ${path}\``;
      for (const args of [
        ['jobs', 'list'],
        ['config', 'get', 'base-url'],
        ['jobs', 'list', '--json', '-q'],
      ]) {
        const run = await runCli(args, { env });
        expect(run.exitCode, args.join(' ')).toBe(0);
        expect(String(run.stderr).split('\n'), args.join(' ')).toContain(warning);
        expect(`${String(run.stdout)}${String(run.stderr)}`).not.toContain(TOKEN);
      }
      expect(server.received.map((request) => request.url)).toEqual(['/api/jobs', '/api/jobs']);

      await chmod(path, 0o600);
      const quiet = await runCli(['jobs', 'list'], { env });
      expect(quiet.exitCode).toBe(0);
      expect(String(quiet.stderr)).not.toContain('warning');

      await writeFile(path, JSON.stringify({ 'base-url': server.baseUrl }));
      await chmod(path, 0o644);
      const noToken = await runCli(['config', 'get', 'base-url'], { env });
      expect([noToken.exitCode, noToken.stdout, noToken.stderr]).toEqual([0, server.baseUrl, '']);
    });
  },
);

/** A config file with the token, readable by others, as `cp` leaves it. */
async function exposedConfig(baseUrl: string): Promise<{ path: string; env: NodeJS.ProcessEnv }> {
  const dir = join(work.path, 'cfg');
  const path = join(dir, 'config.json');
  await mkdir(dir);
  await writeFile(path, JSON.stringify({ 'base-url': baseUrl, token: TOKEN }));
  await chmod(path, 0o644);
  return { path, env: isolatedEnv(dir) };
}

test.skipIf(process.platform === 'win32')(
  'logout, config set and config unset make the file private: no warning about the mode it had; a refused value leaves it, warned about after',
  async () => {
    const { path, env } = await exposedConfig('https://a.example');
    const set = await runCli(['config', 'set', 'base-url', 'https://b.example'], { env });
    expect(set.exitCode, String(set.stderr)).toBe(0);
    expect(String(set.stderr)).not.toContain('warning');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({
      'base-url': 'https://b.example',
      token: TOKEN,
    });

    await chmod(path, 0o644);
    const unset = await runCli(['config', 'unset', 'gender'], { env });
    expect(unset.exitCode, String(unset.stderr)).toBe(0);
    expect(String(unset.stderr)).not.toContain('warning');
    expect((await stat(path)).mode & 0o777).toBe(0o600);

    // A value refused writes nothing: the file is still exposed after the command, and said so.
    await chmod(path, 0o644);
    const refused = await runCli(['config', 'set', 'base-url', 'http://b.example'], { env });
    expect(refused.exitCode).toBe(2);
    expect(String(refused.stderr)).toContain(
      `warning: the config file ${path} holds the token and is not private`,
    );
    expect((await stat(path)).mode & 0o777).toBe(0o644);

    const logout = await runCli(['logout'], { env });
    expect(logout.exitCode).toBe(0);
    expect(String(logout.stderr)).not.toContain('warning');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ 'base-url': 'https://b.example' });
  },
);

test.skipIf(process.platform === 'win32')(
  'a config folder other users can write in: each command warns, with the chmod, token stored or not (they could swap the file); a sticky or private one does not',
  async () => {
    await withListingService(async ({ server, dir, path }) => {
      await mkdir(dir);
      await writeFile(path, JSON.stringify({ 'base-url': server.baseUrl }), { mode: 0o600 });
      await chmod(dir, 0o777);
      const warning = `warning: the config file's folder ${dir} can be written by other users (mode 0777): they could replace the config file and have the token sent to their server; run \`chmod 700 ${dir}\``;
      // The token from the environment goes to the config file's base-url: a swapped file's.
      const fromEnv = await runCli(['jobs', 'list'], { env: isolatedEnv(dir, { VREDACT_TOKEN: TOKEN }) });
      expect(fromEnv.exitCode).toBe(0);
      expect(String(fromEnv.stderr).split('\n')).toContain(warning);

      // Stored by login into that folder: warned about after.
      const login = await runCli(['login', '--token-stdin'], { env: isolatedEnv(dir), input: TOKEN });
      expect(login.exitCode).toBe(0);
      expect(String(login.stderr).split('\n')).toContain(warning);
      expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ 'base-url': server.baseUrl, token: TOKEN });

      for (const mode of [0o1777, 0o700]) {
        await chmod(dir, mode);
        const quiet = await runCli(['jobs', 'list'], { env: isolatedEnv(dir) });
        expect(quiet.exitCode, mode.toString(8)).toBe(0);
        expect(String(quiet.stderr), mode.toString(8)).not.toContain('warning');
      }
    });
  },
);

test.skipIf(process.platform === 'win32')(
  'a config file with no token that other users can change: each command warns (the token in effect goes to its base-url)',
  async () => {
    await withListingService(async ({ server, dir, path }) => {
      await mkdir(dir);
      await writeFile(path, JSON.stringify({ 'base-url': server.baseUrl }));
      await chmod(path, 0o666);
      const env = isolatedEnv(dir, { VREDACT_TOKEN: TOKEN });
      const run = await runCli(['jobs', 'list'], { env });
      expect(run.exitCode).toBe(0);
      expect(String(run.stderr).split('\n')).toContain(
        `warning: the config file ${path} can be changed by other users (mode 0666): they could set its base-url to their server and have the token sent there; run \`chmod 600 ${path}\``,
      );
      await chmod(path, 0o644);
      expect(String((await runCli(['jobs', 'list'], { env })).stderr)).not.toContain('warning');
    });
  },
);

/** Another account's id: neither root nor the test's own user. */
const OTHER_UID = 4242;

test.skipIf(process.platform === 'win32' || process.getuid?.() !== 0)(
  'a config folder and file owned by another user, private modes and all: each command warns, with what to do, login after its work',
  async () => {
    await withListingService(async ({ server, dir, path }) => {
      await mkdir(dir, { mode: 0o700 });
      await writeFile(path, JSON.stringify({ 'base-url': server.baseUrl }), { mode: 0o600 });
      // As root (the only way to give a file away), the run is by root: another user is any but root.
      await chown(dir, OTHER_UID, OTHER_UID);
      await chown(path, OTHER_UID, OTHER_UID);
      const folderWarning = `warning: the config file's folder ${dir} is owned by another user (uid ${OTHER_UID}): they could replace the config file and have the token sent to their server; point VREDACT_CONFIG_DIR at a folder of your own (or unset it)`;
      const fileWarning = `warning: the config file ${path} is owned by another user (uid ${OTHER_UID}): they could set its base-url to their server and have the token sent there; remove it and set the values again (\`vredact login\`, \`vredact config set\`), or point VREDACT_CONFIG_DIR at a folder of your own`;
      for (const args of [
        ['jobs', 'list'],
        ['config', 'get', 'base-url'],
      ]) {
        const run = await runCli(args, { env: isolatedEnv(dir, { VREDACT_TOKEN: TOKEN }) });
        expect(run.exitCode, args.join(' ')).toBe(0);
        const lines = String(run.stderr).split('\n');
        expect(lines, args.join(' ')).toContain(folderWarning);
        // A file in their folder is theirs to replace: the folder's line says what to do, alone.
        expect(lines, args.join(' ')).not.toContain(fileWarning);
        // In a folder of one's own, the file is said of.
        await chown(dir, 0, 0);
        const ownFolder = await runCli(args, { env: isolatedEnv(dir, { VREDACT_TOKEN: TOKEN }) });
        expect(String(ownFolder.stderr).split('\n'), args.join(' ')).toEqual(
          expect.arrayContaining([fileWarning]),
        );
        expect(String(ownFolder.stderr), args.join(' ')).not.toContain(folderWarning);
        await chown(dir, OTHER_UID, OTHER_UID);
      }
      // login, which rewrites the file, says so after its work: the folder is still the other user's.
      const login = await runCli(['login', '--token-stdin'], { env: isolatedEnv(dir), input: TOKEN });
      expect(login.exitCode, String(login.stderr)).toBe(0);
      expect(String(login.stderr).split('\n')).toContain(folderWarning);
      expect(String(login.stderr)).not.toContain(fileWarning);

      await chown(dir, 0, 0);
      await chown(path, 0, 0);
      const quiet = await runCli(['jobs', 'list'], { env: isolatedEnv(dir) });
      expect(quiet.exitCode).toBe(0);
      expect(String(quiet.stderr)).not.toContain('warning');
    });
  },
);

test.skipIf(process.platform === 'win32' || process.getuid?.() !== 0)(
  "root's login gives the config file to its folder's owner: a file of another user's in root's folder becomes root's, and under sudo the user's own folder and file are theirs, unwarned",
  async () => {
    await withListingService(async ({ server, dir, path }) => {
      await mkdir(dir, { mode: 0o700 });
      await writeFile(path, JSON.stringify({ 'base-url': server.baseUrl }), { mode: 0o600 });
      await chown(path, OTHER_UID, OTHER_UID);
      // The warning told to log in again; the rewrite kept the other user's ownership, and the warning.
      const login = await runCli(['login', '--token-stdin'], { env: isolatedEnv(dir), input: TOKEN });
      expect([login.exitCode, String(login.stderr)]).toEqual([0, expect.not.stringContaining('warning')]);
      const written = await stat(path);
      expect([written.uid, written.mode & 0o777]).toEqual([0, 0o600]);
      expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ token: TOKEN });

      // `sudo vredact login` with the user's home folder kept: their folder, a new file made there.
      const theirs = join(dir, 'theirs');
      await mkdir(theirs, { mode: 0o700 });
      await chown(theirs, OTHER_UID, OTHER_UID);
      const asSudo = isolatedEnv(theirs, { SUDO_UID: String(OTHER_UID) });
      const sudoLogin = await runCli(['login', '--token-stdin'], {
        env: { ...asSudo, VREDACT_BASE_URL: server.baseUrl },
        input: TOKEN,
      });
      expect([sudoLogin.exitCode, String(sudoLogin.stderr)]).toEqual([
        0,
        expect.not.stringContaining('warning'),
      ]);
      const made = await stat(join(theirs, 'config.json'));
      // Root's, it was unreadable to them: their next command stopped at the config file.
      expect([made.uid, made.gid, made.mode & 0o777]).toEqual([OTHER_UID, OTHER_UID, 0o600]);
      const list = await runCli(['jobs', 'list'], { env: asSudo });
      expect([list.exitCode, String(list.stderr)]).toEqual([0, expect.not.stringContaining('warning')]);
      // Without sudo's word, the same folder is another user's, warned about.
      const bare = await runCli(['jobs', 'list'], { env: isolatedEnv(theirs) });
      expect(String(bare.stderr)).toContain(
        `the config file's folder ${theirs} is owned by another user (uid ${OTHER_UID})`,
      );
    });
  },
);

test.skipIf(process.getuid?.() !== 0)(
  'a home folder another user owns (an image made for another uid): one line says so, not one per folder',
  async () => {
    await withListingService(async ({ server, dir }) => {
      const home = join(dir, 'home');
      const folder = join(home, '.config', 'vredact');
      await mkdir(folder, { recursive: true, mode: 0o700 });
      await writeFile(join(folder, 'config.json'), JSON.stringify({ 'base-url': server.baseUrl }), {
        mode: 0o600,
      });
      const env = isolatedEnv(folder, { VREDACT_TOKEN: TOKEN, HOME: home });
      // As root (the only way to give a folder away), the run is by root: another user is any but root.
      await chown(home, OTHER_UID, OTHER_UID);
      await chown(join(home, '.config'), OTHER_UID, OTHER_UID);
      const parents = await runCli(['jobs', 'list'], { env });
      expect(parents.exitCode).toBe(0);
      const warnings = (run: typeof parents) =>
        String(run.stderr)
          .split('\n')
          .filter((line) => line.startsWith('warning:'));
      expect(warnings(parents)).toEqual([
        expect.stringMatching(
          new RegExp(`^warning: the folder ${home} above the config file is owned by another user`),
        ),
      ]);
      // The config folder theirs too: its own line says what to do.
      await chown(folder, OTHER_UID, OTHER_UID);
      const all = await runCli(['jobs', 'list'], { env });
      expect(warnings(all)).toEqual([
        expect.stringMatching(
          new RegExp(`^warning: the config file's folder ${folder} is owned by another user`),
        ),
      ]);
    });
  },
);

test.skipIf(process.platform === 'win32')(
  'a folder above the config folder that others may write in, or another user owns: each command warns, with what to do; a sticky one does not',
  async () => {
    await withListingService(async ({ server, dir }) => {
      const above = join(dir, 'shared');
      const folder = join(above, 'vredact');
      await mkdir(folder, { recursive: true, mode: 0o700 });
      await writeFile(join(folder, 'config.json'), JSON.stringify({ 'base-url': server.baseUrl }), {
        mode: 0o600,
      });
      const env = isolatedEnv(folder, { VREDACT_TOKEN: TOKEN, HOME: dir });
      const risk = `they could move the config file's folder away and put one of theirs in its place, with their server as its base-url`;
      // A home folder others may search (a temporary folder is 0700: nothing below it is reachable).
      await chmod(dir, 0o755);
      await chmod(above, 0o775);
      const writable = await runCli(['jobs', 'list'], { env });
      expect(writable.exitCode).toBe(0);
      expect(String(writable.stderr).split('\n')).toContain(
        `warning: the folder ${above} above the config file can be written by other users (mode 0775): ${risk}; run \`chmod go-w ${above}\``,
      );
      await chmod(above, 0o1777);
      expect(String((await runCli(['jobs', 'list'], { env })).stderr)).not.toContain('warning');
      await chmod(above, 0o755);
      if (process.getuid?.() === 0) {
        // As root (the only way to give a folder away), the run is by root: another user is any but root.
        await chown(above, OTHER_UID, OTHER_UID);
        const foreign = await runCli(['jobs', 'list'], { env });
        expect(String(foreign.stderr).split('\n')).toContain(
          `warning: the folder ${above} above the config file is owned by another user (uid ${OTHER_UID}): ${risk}; point VREDACT_CONFIG_DIR at a folder of your own (or unset it)`,
        );
        await chown(above, 0, 0);
      }
      const quiet = await runCli(['jobs', 'list'], { env });
      expect([quiet.exitCode, String(quiet.stderr)]).toEqual([0, expect.not.stringContaining('warning')]);
    });
  },
);
