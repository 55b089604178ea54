import { describe, expect, it } from 'vitest';
import { LinkMissingError } from '../../src/api/link-errors.js';
import { earlierMisses, LINK_TRIES, LinkTries } from '../../src/redact/link-tries.js';

const MISSING = new LinkMissingError(
  "downloading r.wav: the download link's host files.example:443 answered 404 Not Found",
  404,
);

describe('LinkTries', () => {
  it('lets a job try its link LINK_TRIES times, then gives the reason naming them', () => {
    const tries = new LinkTries();
    const reasons = Array.from({ length: LINK_TRIES }, () => tries.missed(MISSING));
    expect(reasons.slice(0, -1)).toEqual(Array.from({ length: LINK_TRIES - 1 }, () => undefined));
    expect(reasons.at(-1)).toBe(`${MISSING.message} (tried ${LINK_TRIES} times, a new link each time)`);
  });

  it("counts each job's tries on their own", () => {
    const [a, b] = [new LinkTries(), new LinkTries()];
    for (let i = 1; i < LINK_TRIES; i++) a.missed(MISSING);
    expect(b.missed(MISSING)).toBeUndefined();
    expect(a.missed(MISSING)).toMatch(/tried 3 times/);
  });

  it('counts the tries of earlier runs, journaled, toward the same bound, and says so', () => {
    const tries = new LinkTries(LINK_TRIES - 1);
    expect(tries.misses).toBe(LINK_TRIES - 1);
    expect(tries.missed(MISSING)).toBe(
      `${MISSING.message} (tried ${LINK_TRIES} times, ${LINK_TRIES - 1} of them by earlier runs, a new link each time)`,
    );
  });

  it('reads a damaged count as none, and never more than the bound', () => {
    expect(earlierMisses(undefined)).toBe(0);
    expect(earlierMisses(-1)).toBe(0);
    expect(earlierMisses(1.5)).toBe(0);
    expect(earlierMisses('2')).toBe(0);
    expect(earlierMisses(2)).toBe(2);
    expect(earlierMisses(99)).toBe(LINK_TRIES);
  });
});
