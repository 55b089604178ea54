import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { elsewhereOnThisHostName, sameProcessSpace, thisProcessSpace } from '../../src/fs/process-space.js';
import { OUR_PROCESS_SPACE } from '../helpers/process-space.js';

const linux = { hostname: 'idx-0', bootId: 'b1', pidNamespace: 'pid:[4026532001]' };

describe('lock process space', () => {
  it("is this process's host name, and its boot and pid namespace where /proc tells", () => {
    expect(thisProcessSpace()).toEqual({ hostname: hostname(), ...OUR_PROCESS_SPACE });
    expect(sameProcessSpace(thisProcessSpace())).toBe(true);
  });

  it('needs the host name, the boot and the pid namespace all to match', () => {
    expect(sameProcessSpace(linux, { ...linux })).toBe(true);
    expect(sameProcessSpace({ ...linux, hostname: 'idx-1' }, linux)).toBe(false);
    expect(sameProcessSpace({ ...linux, bootId: 'b2' }, linux)).toBe(false);
    expect(sameProcessSpace({ ...linux, pidNamespace: 'pid:[4026532002]' }, linux)).toBe(false);
    expect(elsewhereOnThisHostName({ ...linux, pidNamespace: 'pid:[4026532002]' }, linux)).toBe(
      ' in another container (or another boot)',
    );
    expect(elsewhereOnThisHostName({ ...linux, hostname: 'idx-1' }, linux)).toBe('');
    expect(elsewhereOnThisHostName(linux, linux)).toBe('');
  });

  it("takes an older version's lock (no boot, no namespace) as ours only where we cannot read ours either", () => {
    const older = { hostname: 'idx-0' };
    expect(sameProcessSpace(older, linux)).toBe(false);
    expect(elsewhereOnThisHostName(older, linux)).toBe(
      ' of an older vredact, which does not say its container',
    );
    // Where /proc tells nothing (macOS): the host name and pid, as before.
    expect(sameProcessSpace(older, { hostname: 'idx-0' })).toBe(true);
    // And a lock from Linux read there is another place's.
    expect(sameProcessSpace(linux, { hostname: 'idx-0' })).toBe(false);
  });
});
