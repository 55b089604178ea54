import { describe, expect, it } from 'vitest';
import { pickResult } from '../../src/redact/pick-result.js';

describe('pickResult', () => {
  it('picks the result item, not the uploaded file', () => {
    const item = (id: string, file_name: string) => ({
      id,
      job_id: 'j',
      file_name,
      audio_duration: 1,
      created_at: '',
    });
    expect(pickResult([item('1', 'a.wav')], 'a.wav')).toBeUndefined();
    expect(pickResult([item('1', 'a.wav'), item('2', 'a.redacted.wav')], 'a.wav')?.file_name).toBe(
      'a.redacted.wav',
    );
    expect(pickResult([item('1', 'a.mp3'), item('2', 'a.wav')], 'a.mp3')?.file_name).toBe('a.wav');
    expect(pickResult([item('1', 'my_call.wav'), item('2', 'out.wav')], 'my call.wav')?.file_name).toBe(
      'out.wav',
    );
    expect(
      pickResult([item('3', 'late.wav'), item('1', 'x.mp3'), item('2', 'early.wav')], 'x.mp3')?.file_name,
    ).toBe('late.wav');
    // Ids past 2^53 that differ by one read as the same Number.
    expect(
      pickResult(
        [item('12345678901234567893', 'late.wav'), item('12345678901234567891', 'early.wav')],
        'x.mp3',
      )?.file_name,
    ).toBe('late.wav');
  });
});
