import { describe, expect, it } from 'vitest';
import { listedDurationSeconds } from '../../src/api/audio-duration.js';

describe('listedDurationSeconds', () => {
  it('reads seconds up to the longest result the service can give', () => {
    expect(listedDurationSeconds(7.2)).toBe(7.2);
    expect(listedDurationSeconds(3600)).toBe(3600);
    expect(listedDurationSeconds(3780)).toBe(3780);
  });

  it('reads a value no recording reaches in seconds as milliseconds', () => {
    expect(listedDurationSeconds(6999)).toBe(6.999);
    expect(listedDurationSeconds(3_600_000)).toBe(3600);
  });

  it('keeps an unknown duration unknown', () => {
    expect(listedDurationSeconds(null)).toBeNull();
    expect(listedDurationSeconds(undefined)).toBeNull();
  });
});
