import { describe, expect, it } from 'vitest';
import { NumberLiteral } from '../../src/api/exact-json.js';
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

  it('masks a part of the token too: a server that echoes it cut short or upper-cased', () => {
    const scrub = scrubberFor([TOKEN]);
    // Cut short (as many error pages do), its end alone, upper-cased: each run of 10 or more of the
    // token's characters is masked.
    expect(scrub('bad token vr_live_01234567... rejected')).toBe('bad token vr_…cdef... rejected');
    expect(scrub('ends in 6789abcdef!')).toBe('ends in vr_…cdef!');
    expect(scrub('BEARER VR_LIVE_0123456789ABCDEF')).toBe('BEARER vr_…cdef');
    expect(scrub('two: 0123456789a and 456789abcd.')).toBe('two: vr_…cdef and vr_…cdef.');
    // Shorter runs are ordinary text (the masked form itself shows the last four).
    expect(scrub('job 012345678 at live_0123')).toBe('job 012345678 at live_0123');
    // A secret too short to show masked is matched whole only.
    expect(scrubberFor(['abcdefghij'])('abcdefghij abcdefghi')).toBe('… abcdefghi');
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

  it('a number kept as its literal is passed on as it is, not rebuilt as an object', () => {
    const id = new NumberLiteral('12345678901234567891');
    expect((scrubDeep({ id }, scrubberFor([TOKEN])) as { id: unknown }).id).toBe(id);
  });

  it('parts nested deeper than it walks are dropped, not kept unscrubbed', () => {
    let nested: unknown = TOKEN;
    for (let i = 0; i < 40; i++) nested = [nested];
    expect(JSON.stringify(scrubDeep(nested, scrubberFor([TOKEN])))).not.toContain(TOKEN);
  });
});

describe('a token echoed in another encoding', () => {
  const SLASHY = 'vr_live_ab/cd+ef=gh0123456789';

  it('percent-encoded (in a Location or a URL in a message): masked whole', () => {
    const scrub = scrubberFor([SLASHY]);
    expect(scrub(`https://x.example/?t=${encodeURIComponent(SLASHY)}&a=1`)).toBe(
      'https://x.example/?t=vr_…6789&a=1',
    );
  });

  it('base64 (standard and URL-safe), at any of the three alignments inside an encoded text', () => {
    const scrub = scrubberFor([TOKEN]);
    for (const before of ['', 'B', 'Be', 'Bearer ', 'Authorization: Bearer ']) {
      const plain = `${before}${TOKEN} and more`;
      for (const encoded of [
        Buffer.from(plain).toString('base64'),
        Buffer.from(plain).toString('base64url'),
      ]) {
        const shown = scrub(`echo ${encoded}.`);
        expect(shown, plain).toContain('vr_…cdef');
        // Decoded, what is left holds no run of 10 of the token's characters.
        const left = Buffer.from(shown.replace('vr_…cdef', ''), 'base64').toString('latin1');
        for (let i = 0; i + 10 <= TOKEN.length; i++) expect(left).not.toContain(TOKEN.slice(i, i + 10));
      }
    }
  });

  it("an ordinary base64 text is left as it is (a signed URL's signature)", () => {
    const signature = Buffer.from('a signature of some other bytes entirely').toString('base64url');
    expect(scrubberFor([TOKEN])(signature)).toBe(signature);
  });
  it('masks the token split by escape sequences or invisible characters, which read as nothing once shown', () => {
    const scrub = scrubberFor([TOKEN]);
    const every4 = (joint: string) => TOKEN.replace(/(.{4})/g, `$1${joint}`);
    // A colour change, C1's CSI, an OSC 8 link, a zero-width space, a bidi isolate, a CR: each run of
    // 10 or more characters as shown is masked whole, what split it included.
    for (const joint of ['\x1b[0m', '\x9b1m', '\x1b]8;;http://x/\x07', '\u200b', '\u2066', '\r']) {
      const out = scrub(`bad ${every4(joint)} end`);
      expect(
        out.replace(/\x1b\[[0-9;]*m|\x9b1m|\x1b\]8;;http:\/\/x\/\x07|[\u200b\u2066\r]/g, ''),
      ).not.toContain(TOKEN.slice(0, 10));
      expect(out).toMatch(/^bad vr_…cdef.* end$/s);
    }
    expect(scrub(`a \x1b[31m${TOKEN.slice(0, 12)}\x1b[0m${TOKEN.slice(12)} b`)).toBe('a \x1b[31mvr_…cdef b');
    // Text with no such characters, or with them away from the token, is left as it was.
    expect(scrub('job \x1b[1m0123\x1b[0m done')).toBe('job \x1b[1m0123\x1b[0m done');
    expect(scrub('plain 012345678 text')).toBe('plain 012345678 text');
  });
});
