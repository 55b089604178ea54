/**
 * The config file's edges that only root can set up: a link planted by another user (root must not
 * write or read through it), a user with no home folder at all (a container run as an arbitrary uid,
 * with or without XDG_CONFIG_HOME), folders root makes in a user's home under sudo, and a file of
 * root's that a user cannot read.
 */
import { spawnSync } from 'node:child_process';
import {
  chmod,
  chown,
  lchown,
  lstat,
  mkdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { expect, test } from 'vitest';
import { isolatedEnv, runCli, tempDirPerTest } from '../helpers/cli.js';
import { runCliUnder } from '../helpers/unprivileged.js';
import { sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'vr_config_root_0123456789abcdef';
const OTHER_UID = 4242;
/** A uid with no passwd entry: Node.js finds no home folder for it when HOME is unset. */
const HOMELESS_UID = 54_321;
const work = tempDirPerTest('vredact-config-root-');

const asRoot = process.platform !== 'win32' && process.getuid?.() === 0;
const hasSetpriv = asRoot && spawnSync('setpriv', ['--version']).status === 0;
const homelessUidFree = hasSetpriv && spawnSync('getent', ['passwd', String(HOMELESS_UID)]).status === 2;

/** The run as `uid`, with no supplementary groups (root's would let it read root's files). */
const asUser = (uid: number) => ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups'];

/** The environment without HOME, as a container started with `--user <uid>` and no passwd entry has it. */
function withoutHome(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { HOME: _home, XDG_CONFIG_HOME: _xdg, ...rest } = env;
  return rest;
}

test.skipIf(!asRoot)(
  "root does not write through a config file that is a link another user owns: the linked file is left as it was; the user's own link is written through",
  async () => {
    const folder = join(work.path, 'theirs');
    await mkdir(folder, { mode: 0o700 });
    const elsewhere = join(work.path, 'system-file');
    const system = JSON.stringify({ note: "a file of root's, not the config" });
    await writeFile(elsewhere, system, { mode: 0o644 });
    const path = join(folder, 'config.json');
    await symlink(elsewhere, path);
    await lchown(path, OTHER_UID, OTHER_UID);
    await lchown(folder, OTHER_UID, OTHER_UID);

    for (const args of [
      ['config', 'set', 'concurrency', '3'],
      ['config', 'set', 'gender', 'f'],
    ]) {
      const run = await runCli(args, { env: isolatedEnv(folder) });
      expect(run.exitCode, args.join(' ')).toBe(2);
      expect(String(run.stderr), args.join(' ')).toContain(
        `error: cannot write the config file ${path}: it is a symbolic link owned by another user (uid ${OTHER_UID})`,
      );
    }
    const after = await stat(elsewhere);
    expect([await readFile(elsewhere, 'utf8'), after.mode & 0o777, after.uid]).toEqual([system, 0o644, 0]);
    expect(await readlink(path)).toBe(elsewhere);

    // A dotfiles manager's link, made by this user: read through and written through, still a link.
    const own = join(work.path, 'own');
    const dotfile = join(work.path, 'dotfiles-vredact.json');
    await mkdir(own, { mode: 0o700 });
    await writeFile(dotfile, JSON.stringify({ gender: 'f' }), { mode: 0o644 });
    await symlink(dotfile, join(own, 'config.json'));
    const set = await runCli(['config', 'set', 'concurrency', '3'], { env: isolatedEnv(own) });
    expect([set.exitCode, String(set.stderr)]).toEqual([0, expect.stringContaining('Set concurrency')]);
    expect((await lstat(join(own, 'config.json'))).isSymbolicLink()).toBe(true);
    expect(JSON.parse(await readFile(dotfile, 'utf8'))).toEqual({ gender: 'f', concurrency: '3' });
    expect((await stat(dotfile)).mode & 0o777).toBe(0o600);
    const get = await runCli(['config', 'get', 'gender'], { env: isolatedEnv(own) });
    expect([get.exitCode, get.stdout]).toEqual([0, 'f']);
  },
);

test.skipIf(!homelessUidFree)(
  'no home folder (HOME unset, a uid with no passwd entry): commands that need no config file run; config path, config set and login say what to set',
  async () => {
    const server = await startScriptedServer((_req, res) => sendJson(res, 200, { jobs: [] }));
    try {
      await chmod(work.path, 0o755);
      const env = withoutHome(isolatedEnv(''));
      delete env.VREDACT_CONFIG_DIR;
      const user = asUser(HOMELESS_UID);
      const cwd = work.path;

      for (const args of [['--version'], ['--help']]) {
        const run = await runCliUnder(user, args, { env, cwd });
        expect([run.exitCode, String(run.stderr)], args.join(' ')).toEqual([0, '']);
      }
      const service = { ...env, VREDACT_BASE_URL: server.baseUrl, VREDACT_TOKEN: TOKEN };
      const list = await runCliUnder(user, ['jobs', 'list', '--verbose'], { env: service, cwd });
      expect(list.exitCode, String(list.stderr)).toBe(0);
      expect(String(list.stderr)).toContain(
        'debug: no config file is read: cannot find a home folder for the config',
      );
      expect(server.received.map((request) => request.url)).toEqual(['/api/jobs']);

      for (const [args, input] of [
        [['config', 'path'], undefined],
        [['config', 'set', 'concurrency', '3'], undefined],
        [['login', '--token-stdin'], TOKEN],
      ] as const) {
        const run = await runCliUnder(user, [...args], { env: service, cwd, input });
        expect([run.exitCode, String(run.stderr)], args.join(' ')).toEqual([
          2,
          expect.stringContaining(
            'error: cannot find a home folder for the config (HOME is unset and this user has no passwd entry)\nhint: set HOME, XDG_CONFIG_HOME or VREDACT_CONFIG_DIR',
          ),
        ]);
      }

      // VREDACT_CONFIG_DIR is a place for it without a home folder.
      const dir = join(work.path, 'cfg');
      await mkdir(dir, { mode: 0o700 });
      await chown(dir, HOMELESS_UID, HOMELESS_UID);
      const set = await runCliUnder(user, ['config', 'set', 'concurrency', '3'], {
        env: { ...env, VREDACT_CONFIG_DIR: dir },
        cwd,
      });
      expect(set.exitCode, String(set.stderr)).toBe(0);
      const made = await stat(join(dir, 'config.json'));
      expect([made.uid, made.mode & 0o777]).toEqual([HOMELESS_UID, 0o600]);
      expect(JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'))).toEqual({ concurrency: '3' });
    } finally {
      await server.close();
    }
  },
);

test.skipIf(!asRoot)('HOME unset as root: the passwd entry is the home folder', async () => {
  const env = withoutHome(isolatedEnv(''));
  delete env.VREDACT_CONFIG_DIR;
  const run = await runCli(['config', 'path'], { env });
  expect([run.exitCode, String(run.stderr)]).toEqual([0, '']);
  expect(String(run.stdout)).toMatch(/^\/.*\/vredact\/config\.json$/);
});

test.skipIf(!hasSetpriv)(
  "a config file this user cannot read (root's, 0600): the hint says so, with its owner and the chown, not to delete it",
  async () => {
    await chmod(work.path, 0o755);
    const dir = join(work.path, 'cfg');
    await mkdir(dir, { mode: 0o755 });
    const path = join(dir, 'config.json');
    await writeFile(path, JSON.stringify({ concurrency: '3' }), { mode: 0o600 });
    const run = await runCliUnder(asUser(OTHER_UID), ['config', 'list'], {
      env: isolatedEnv(dir, { HOME: work.path }),
      cwd: work.path,
    });
    expect([run.exitCode, String(run.stderr)]).toEqual([
      2,
      `error: cannot read the config file ${path}: permission denied\nhint: this user cannot read it: run as its owner (uid 0), give it to this user (\`sudo chown ${OTHER_UID} ${path}\`), or point VREDACT_CONFIG_DIR at a folder of your own`,
    ]);
  },
);

test.skipIf(!asRoot)(
  'root does not read through a config file that is a link another user owns: one line names it, nothing of the linked file is shown, the settings are not used',
  async () => {
    const folder = join(work.path, 'cfg');
    await mkdir(folder, { mode: 0o700 });
    const secret = join(work.path, 'shadow');
    await writeFile(secret, 'root:$6$secret-hash-line:19000:0:99999:7:::\n', { mode: 0o600 });
    const path = join(folder, 'config.json');
    await symlink(secret, path);
    await lchown(path, OTHER_UID, OTHER_UID);

    for (const args of [['config', 'list'], ['config', 'get', 'concurrency'], ['status']]) {
      const run = await runCli(args, { env: isolatedEnv(folder) });
      const said = `${String(run.stdout)}\n${String(run.stderr)}`;
      expect(said, args.join(' ')).not.toContain('secret-hash');
      expect(String(run.stderr), args.join(' ')).toContain(
        `warning: the config file ${path} is a symbolic link owned by another user (uid ${OTHER_UID}): root does not read through it`,
      );
      expect(
        String(run.stderr)
          .split('\n')
          .filter((line) => line.includes(path)),
        args.join(' '),
      ).toHaveLength(1);
    }
    const list = await runCli(['config', 'list', '--json'], { env: isolatedEnv(folder) });
    expect(list.exitCode).toBe(0);
    expect(await readFile(secret, 'utf8')).toContain('secret-hash');
  },
);

test.skipIf(!homelessUidFree)(
  'no home folder but XDG_CONFIG_HOME set: the config file is $XDG_CONFIG_HOME/vredact/config.json, written and read',
  async () => {
    await chmod(work.path, 0o755);
    const xdg = join(work.path, 'xdg');
    await mkdir(xdg, { mode: 0o700 });
    await chown(xdg, HOMELESS_UID, HOMELESS_UID);
    const env: NodeJS.ProcessEnv = { ...withoutHome(isolatedEnv('')), XDG_CONFIG_HOME: xdg };
    delete env.VREDACT_CONFIG_DIR;
    const user = asUser(HOMELESS_UID);
    const cwd = work.path;
    const path = join(xdg, 'vredact', 'config.json');

    const where = await runCliUnder(user, ['config', 'path'], { env, cwd });
    expect([where.exitCode, String(where.stdout), String(where.stderr)]).toEqual([0, path, '']);
    const set = await runCliUnder(user, ['config', 'set', 'concurrency', '3'], { env, cwd });
    expect(set.exitCode, String(set.stderr)).toBe(0);
    const made = await stat(path);
    expect([made.uid, made.mode & 0o777]).toEqual([HOMELESS_UID, 0o600]);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ concurrency: '3' });
    const get = await runCliUnder(user, ['config', 'get', 'concurrency'], { env, cwd });
    expect([get.exitCode, String(get.stdout), String(get.stderr)]).toEqual([0, '3', '']);
  },
);

test.skipIf(!hasSetpriv)(
  "root under sudo with the user's HOME makes the config folders the user's, as the file is: their next plain `config set` works; a folder that was there stays as it was",
  async () => {
    await chmod(work.path, 0o755);
    const home = join(work.path, 'home');
    await mkdir(home, { mode: 0o700 });
    await chown(home, OTHER_UID, OTHER_UID);
    const env = isolatedEnv('', { HOME: home, XDG_CONFIG_HOME: undefined });
    delete env.VREDACT_CONFIG_DIR;
    delete env.XDG_CONFIG_HOME;
    const path = join(home, '.config', 'vredact', 'config.json');

    const asRootBySudo = await runCli(['config', 'set', 'concurrency', '3'], {
      env: { ...env, SUDO_UID: String(OTHER_UID) },
      cwd: work.path,
    });
    expect([asRootBySudo.exitCode, String(asRootBySudo.stderr)]).toEqual([
      0,
      expect.stringContaining('Set concurrency'),
    ]);
    for (const at of [join(home, '.config'), join(home, '.config', 'vredact'), path]) {
      const made = await stat(at);
      expect([at, made.uid, made.gid], at).toEqual([at, OTHER_UID, OTHER_UID]);
    }
    expect((await stat(join(home, '.config', 'vredact'))).mode & 0o777).toBe(0o700);

    const asUserAfter = await runCliUnder(asUser(OTHER_UID), ['config', 'set', 'gender', 'f'], {
      env,
      cwd: work.path,
    });
    expect([asUserAfter.exitCode, String(asUserAfter.stderr)]).toEqual([
      0,
      expect.stringContaining('Set gender'),
    ]);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ concurrency: '3', gender: 'f' });

    // A folder root did not make this run is not given away: a ~/.config of root's stays root's.
    const second = join(work.path, 'home2');
    await mkdir(join(second, '.config'), { recursive: true, mode: 0o755 });
    await chown(second, OTHER_UID, OTHER_UID);
    const again = await runCli(['config', 'set', 'concurrency', '3'], {
      env: { ...env, HOME: second, SUDO_UID: String(OTHER_UID) },
      cwd: work.path,
    });
    expect(again.exitCode, String(again.stderr)).toBe(0);
    expect((await stat(join(second, '.config'))).uid).toBe(0);
    expect((await stat(join(second, '.config', 'vredact'))).uid).toBe(OTHER_UID);
  },
);

const THIRD_UID = 4343;

/** A home folder of OTHER_UID's (0700), with the environment of root run in it by sudo (`sudo -E`). */
async function sudoHome(name: string): Promise<{ home: string; env: NodeJS.ProcessEnv }> {
  await chmod(work.path, 0o755);
  const home = join(work.path, name);
  await mkdir(home, { mode: 0o700 });
  await chown(home, OTHER_UID, OTHER_UID);
  const env = isolatedEnv('', { HOME: home, SUDO_UID: String(OTHER_UID) });
  delete env.VREDACT_CONFIG_DIR;
  delete env.XDG_CONFIG_HOME;
  return { home, env };
}

/** `path`'s folders made from `from` down, each given to `uid`. */
async function foldersOf(uid: number, from: string, ...names: string[]): Promise<string> {
  let at = from;
  for (const name of names) {
    at = join(at, name);
    await mkdir(at, { mode: 0o700 });
    await chown(at, uid, uid);
  }
  return at;
}

test.skipIf(!asRoot)(
  "root by sudo reads and writes through the sudo user's own dotfiles link (the file stays theirs, 0600, the link kept); never to a third user's file",
  async () => {
    const { home, env } = await sudoHome('home');
    const folder = await foldersOf(OTHER_UID, home, '.config', 'vredact');
    const dotfiles = await foldersOf(OTHER_UID, home, 'dotfiles');
    const dotfile = join(dotfiles, 'vredact.json');
    await writeFile(dotfile, JSON.stringify({ gender: 'm' }), { mode: 0o600 });
    await chown(dotfile, OTHER_UID, OTHER_UID);
    const path = join(folder, 'config.json');
    await symlink(dotfile, path);
    await lchown(path, OTHER_UID, OTHER_UID);

    const get = await runCli(['config', 'get', 'gender'], { env, cwd: work.path });
    expect([get.exitCode, String(get.stdout), String(get.stderr)]).toEqual([0, 'm', '']);
    const set = await runCli(['config', 'set', 'concurrency', '3'], { env, cwd: work.path });
    expect([set.exitCode, String(set.stderr)]).toEqual([0, expect.stringContaining('Set concurrency')]);
    expect(await readlink(path)).toBe(dotfile);
    expect(JSON.parse(await readFile(dotfile, 'utf8'))).toEqual({ gender: 'm', concurrency: '3' });
    const written = await stat(dotfile);
    expect([written.uid, written.mode & 0o777]).toEqual([OTHER_UID, 0o600]);

    // The same link to a third user's file: not read (one line), not written.
    const third = join(work.path, 'third.json');
    const thirds = JSON.stringify({ gender: 'm' });
    await writeFile(third, thirds, { mode: 0o644 });
    await chown(third, THIRD_UID, THIRD_UID);
    await rm(path);
    await symlink(third, path);
    await lchown(path, OTHER_UID, OTHER_UID);
    const refused = await runCli(['config', 'get', 'gender'], { env, cwd: work.path });
    expect(refused.exitCode).not.toBe(0);
    expect(String(refused.stdout)).toBe('');
    expect(String(refused.stderr)).toContain(
      `warning: the config file ${path} is a symbolic link of the user who ran sudo to a file owned by another user (uid ${THIRD_UID}): root does not read through it`,
    );
    const write = await runCli(['config', 'set', 'gender', 'f'], { env, cwd: work.path });
    expect([write.exitCode, String(write.stderr)]).toEqual([
      2,
      expect.stringContaining(
        `error: cannot write the config file ${path}: it is a symbolic link to ${third}`,
      ),
    ]);
    const after = await stat(third);
    expect([await readFile(third, 'utf8'), after.uid, after.mode & 0o777]).toEqual([
      thirds,
      THIRD_UID,
      0o644,
    ]);
    expect(await readlink(path)).toBe(third);
  },
);

test.skipIf(!asRoot)(
  "root does not follow a config folder the user replaced with a link to a folder of root's: one line, no setting of it used, nothing written there; a link to a folder of the user's own is followed",
  async () => {
    const { home, env } = await sudoHome('home');
    const roots = join(work.path, 'root-config');
    await mkdir(join(roots, 'vredact'), { recursive: true, mode: 0o700 });
    const rootFile = join(roots, 'vredact', 'config.json');
    const rootText = JSON.stringify({ gender: 'm' });
    await writeFile(rootFile, rootText, { mode: 0o600 });
    const config = await foldersOf(OTHER_UID, home, '.config');

    for (const [link, to] of [
      [join(config, 'vredact'), join(roots, 'vredact')],
      [config, roots],
    ] as const) {
      await rm(config, { recursive: true });
      if (link !== config) await foldersOf(OTHER_UID, home, '.config');
      await symlink(to, link);
      await lchown(link, OTHER_UID, OTHER_UID);
      const get = await runCli(['config', 'get', 'gender'], { env, cwd: work.path });
      expect(String(get.stdout), link).toBe('');
      expect(get.exitCode, link).not.toBe(0);
      const warning = `warning: the folder ${link} on the way to the config file is a symbolic link to a folder owned by uid 0, not by the home folder's owner (uid ${OTHER_UID}): root does not follow it`;
      expect(String(get.stderr), link).toContain(warning);
      expect(String(get.stderr).split(warning), link).toHaveLength(2);
      const set = await runCli(['config', 'set', 'concurrency', '3'], { env, cwd: work.path });
      expect([set.exitCode, String(set.stderr)], link).toEqual([
        2,
        expect.stringContaining(
          `error: cannot write the config file ${join(home, '.config', 'vredact', 'config.json')}: the folder ${link} on the way to the config file is a symbolic link`,
        ),
      ]);
      expect(await readFile(rootFile, 'utf8'), link).toBe(rootText);
    }

    // The user's own link to a folder of theirs (their dotfiles' config) is followed, as before.
    await rm(config);
    const own = await foldersOf(OTHER_UID, home, 'dotfiles', 'config', 'vredact');
    await writeFile(join(own, 'config.json'), JSON.stringify({ gender: 'f' }), { mode: 0o600 });
    await chown(join(own, 'config.json'), OTHER_UID, OTHER_UID);
    await symlink(dirname(own), config);
    await lchown(config, OTHER_UID, OTHER_UID);
    const get = await runCli(['config', 'get', 'gender'], { env, cwd: work.path });
    expect([get.exitCode, String(get.stdout), String(get.stderr)]).toEqual([0, 'f', '']);
  },
);
