import { describe, expect, it } from 'vitest';
import { scrubberFor, scrubDeep } from '../../src/api/scrub.js';

const TOKEN = 'vr_live_0123456789abcdef';

describe('scrubbing secrets from what the service sends', () => {
  it('replaces every occurrence of each secret by its masked form', () => {
    const scrub = scrubberFor([TOKEN, 'p4ssw0rd', undefined]);
    const text = scrub(`echo: Bearer ${TOKEN}, again ${TOKEN}; user:p4ssw0rd@host`);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('p4ssw0rd');
    expect(text).toBe('echo: Bearer vr_…cdef, again vr_…cdef; user:…@host');
  });

  it('secrets shorter than 4 characters, or none at all, leave the text as it is', () => {
    expect(scrubberFor(['abc', '', undefined])('abc abc')).toBe('abc abc');
    expect(scrubberFor([])(`x ${TOKEN}`)).toBe(`x ${TOKEN}`);
  });

  it('scrubDeep rebuilds a parsed answer with every string scrubbed, keys too, never mutating it', () => {
    const scrub = scrubberFor([TOKEN]);
    const answer = { message: TOKEN, [TOKEN]: 1, list: [TOKEN, 2, null, { deep: `x${TOKEN}` }], n: 3 };
    const scrubbed = scrubDeep(answer, scrub);
    expect(JSON.stringify(scrubbed)).not.toContain(TOKEN);
    expect(scrubbed).toEqual({
      message: 'vr_…cdef',
      'vr_…cdef': 1,
      list: ['vr_…cdef', 2, null, { deep: 'xvr_…cdef' }],
      n: 3,
    });
    expect(answer.message).toBe(TOKEN);
  });

  it('parts nested deeper than it walks are dropped, not kept unscrubbed', () => {
    let nested: unknown = TOKEN;
    for (let i = 0; i < 40; i++) nested = [nested];
    expect(JSON.stringify(scrubDeep(nested, scrubberFor([TOKEN])))).not.toContain(TOKEN);
  });
});
