import { describe, expect, it } from 'vitest';
import { downloadProgressLine } from '../../src/download/progress.js';

const counts = { downloaded: 10, skipped: 1, failed: 1 };

describe('downloadProgressLine', () => {
  it('counts the files settled, without a total while the listing is read', () => {
    const line = downloadProgressLine({ counts, total: 0, inFlight: 4, startedAt: 0 }, 32_000);
    expect(line).toBe('downloading 12 · 1 failed · 4 in flight · 0:32 elapsed');
  });

  it('shows the total and an ETA when the files are named', () => {
    const line = downloadProgressLine({ counts, total: 40, inFlight: 4, startedAt: 0 }, 32_000);
    expect(line).toMatch(/^downloading 12\/40 · 1 failed · 4 in flight · 0:32 elapsed · ETA \d+:\d\d$/);
  });

  it('fits a narrow terminal, keeping the count', () => {
    const line = downloadProgressLine({ counts, total: 40, inFlight: 4, startedAt: 0 }, 32_000, 20);
    expect(line).toBe('downloading 12/40');
  });
});
