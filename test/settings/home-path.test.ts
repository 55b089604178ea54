import { describe, expect, it } from 'vitest';
import { expandHome } from '../../src/settings/home-path.js';

describe('expandHome', () => {
  it('takes ~ alone or before a slash as the home folder', () => {
    expect(expandHome('~', '/home/ann')).toBe('/home/ann');
    expect(expandHome('~/', '/home/ann')).toBe('/home/ann');
    expect(expandHome('~/red/2026', '/home/ann')).toBe('/home/ann/red/2026');
  });

  it('leaves every other path as written', () => {
    for (const path of ['~ann/red', './~', 'red/~', '~~', '', '-', '/srv/~/x', 'a~b']) {
      expect(expandHome(path, '/home/ann')).toBe(path);
    }
  });

  it('is a usage error for ~ where no home folder is known, not a folder named ~', () => {
    expect(() => expandHome('~/red', null)).toThrow('cannot expand ~ in ~/red: no home folder is known');
    expect(expandHome('./red', null)).toBe('./red');
  });
});
