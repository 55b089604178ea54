import { describe, expect, it } from 'vitest';
import { warnIfTokenExposed } from '../../src/context.js';
import { foreignConfigOwners, type OwnerProbe } from '../../src/settings/config-owner.js';
import { memoryConfigStore } from '../../src/settings/config-store.js';
import { recordingLogger } from '../helpers/logger.js';

const ME = 1000;
const OTHER = 4242;
const ROOT = 0;
const PATH = '/srv/shared/vredact/config.json';
const FOLDER = '/srv/shared/vredact';

/** The owners each path would have on disk (a link's and its target's), as stat would tell them. */
const owned =
  (owners: Record<string, number[]>) =>
  (path: string): number[] =>
    owners[path] ?? [];

/** A probe run by user `uid` over those owners. */
const probe = (uid: number | undefined, owners: Record<string, number[]>): OwnerProbe => ({
  uid,
  ownersOf: owned(owners),
});

describe('foreignConfigOwners', () => {
  it('names a folder or file owned by another user, neither this one nor root', () => {
    expect(foreignConfigOwners(PATH, probe(ME, { [FOLDER]: [OTHER, OTHER], [PATH]: [ME, ME] }))).toEqual([
      { what: 'folder', path: FOLDER, uid: OTHER },
    ]);
    expect(foreignConfigOwners(PATH, probe(ME, { [FOLDER]: [ME, ME], [PATH]: [OTHER, OTHER] }))).toEqual([
      { what: 'file', path: PATH, uid: OTHER },
    ]);
  });

  it('a symbolic link another user owns is theirs to re-point, whoever owns what it points to', () => {
    expect(foreignConfigOwners(PATH, probe(ME, { [FOLDER]: [OTHER, ME] }))).toEqual([
      { what: 'folder', path: FOLDER, uid: OTHER },
    ]);
  });

  it('root run by sudo trusts the user who ran it (SUDO_UID), as git does; no one else does', () => {
    const theirs = { [FOLDER]: [OTHER, OTHER], [PATH]: [OTHER, OTHER] };
    expect(foreignConfigOwners(PATH, { ...probe(ROOT, theirs), sudoUid: OTHER })).toEqual([]);
    expect(foreignConfigOwners(PATH, { ...probe(ROOT, theirs), sudoUid: ME })).toHaveLength(2);
  });

  it('says nothing of what this user or root owns, of what is not there, or of an in-memory store', () => {
    expect(foreignConfigOwners(PATH, probe(ME, { [FOLDER]: [ROOT, ROOT], [PATH]: [ME, ME] }))).toEqual([]);
    expect(foreignConfigOwners(PATH, probe(ROOT, { [FOLDER]: [ROOT, ROOT], [PATH]: [ROOT, ROOT] }))).toEqual(
      [],
    );
    expect(foreignConfigOwners(PATH, probe(ME, {}))).toEqual([]);
    expect(foreignConfigOwners('(memory)', probe(ME, { '.': [OTHER] }))).toEqual([]);
    // Where users have no ids (Windows), there is no owner to check.
    expect(foreignConfigOwners(PATH, probe(undefined, { [FOLDER]: [OTHER] }))).toEqual([]);
  });
});

describe('warnIfTokenExposed of a config another user owns', () => {
  it('warns of each, with what to do, whatever the file holds', () => {
    const log = recordingLogger();
    const folder = foreignConfigOwners(PATH, probe(ME, { [FOLDER]: [OTHER, OTHER], [PATH]: [ME, ME] }));
    const file = foreignConfigOwners(PATH, probe(ME, { [FOLDER]: [ME, ME], [PATH]: [OTHER, OTHER] }));
    warnIfTokenExposed(memoryConfigStore({}, PATH), log, folder);
    warnIfTokenExposed(memoryConfigStore({}, PATH), log, file);
    expect(log.lines).toEqual([
      `warn: the config file's folder ${FOLDER} is owned by another user (uid ${OTHER}): they could replace the config file and have the token sent to their server; point VREDACT_CONFIG_DIR at a folder of your own (or unset it)`,
      `warn: the config file ${PATH} is owned by another user (uid ${OTHER}): they could set its base-url to their server and have the token sent there; remove it and set the values again (\`vredact login\`, \`vredact config set\`), or point VREDACT_CONFIG_DIR at a folder of your own`,
    ]);
  });

  it("a file in a folder another user owns is said of by the folder's line alone: setting the values again would not help", () => {
    const log = recordingLogger();
    const owners = foreignConfigOwners(PATH, probe(ME, { [FOLDER]: [OTHER, OTHER], [PATH]: [OTHER, OTHER] }));
    expect(owners).toHaveLength(2);
    warnIfTokenExposed(memoryConfigStore({}, PATH), log, owners);
    expect(log.lines).toEqual([
      expect.stringMatching(/^warn: the config file's folder .* point VREDACT_CONFIG_DIR/),
    ]);
  });

  it('says nothing of a config this user owns', () => {
    const log = recordingLogger();
    const owners = foreignConfigOwners(PATH, probe(ME, { [FOLDER]: [ME, ME], [PATH]: [ME, ME] }));
    warnIfTokenExposed(memoryConfigStore({ token: 'vr_test_0123456789abcdef' }, PATH), log, owners);
    expect(log.lines).toEqual([]);
  });
});
