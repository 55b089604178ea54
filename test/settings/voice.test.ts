import { expect, test } from 'vitest';
import { voiceValueError, VOICE_CHOICES, voiceFormFields } from '../../src/settings/voice.js';

test("voiceFormFields sends only the settings given, in the service's field names", () => {
  expect(voiceFormFields({})).toEqual({});
  expect(voiceFormFields({ model: 'mini', gender: 'f', avatar: 'Ann', emotion: '' })).toEqual({
    model_id: 'mini',
    gender: 'f',
    avatar: 'Ann',
  });
  expect(
    voiceFormFields({ age: 'same', gender: 'm', language: 'de', model: 'advanced', emotion: 'sad' }),
  ).toEqual({ age: 'same', gender: 'm', language: 'de', model_id: 'advanced', emotion: 'sad' });
});

test('voiceValueError accepts every listed value and names the allowed ones otherwise', () => {
  for (const [name, values] of Object.entries(VOICE_CHOICES)) {
    for (const value of values)
      expect(voiceValueError(name as keyof typeof VOICE_CHOICES, value)).toBeUndefined();
  }
  expect(voiceValueError('language', 'nl')?.message).toBe(
    '--language must be one of en, fr, it, es, de (got "nl")',
  );
  expect(voiceValueError('gender', 'F')?.message).toContain('--gender must be one of');
});

test.each([
  ['gender', 'F', 'f'],
  ['gender', 'Opp', 'opposite'],
  ['model', 'ADV', 'advanced'],
  ['age', 'middle', 'middle-aged-adult'],
  ['age', 's', undefined],
  ['language', 'nl', undefined],
  ['emotion', '', undefined],
  ['model', 'advnced', 'advanced'],
  ['gender', 'oposite', 'opposite'],
  ['model', 'mimi', 'mini'],
  ['age', 'yung-adult', 'young-adult'],
  ['gender', 'rnd', undefined],
  ['language', 'enn', 'en'],
] as const)('%s %j: the nearest allowed value is %j', (name, value, nearest) => {
  // Where letter case, a prefix or a slip of a key makes one obvious; never a guess between two (`s`:
  // same or senior-adult), nor from a word of two letters or one slip of three (`rnd`).
  expect(voiceValueError(name, value)?.nearest).toBe(nearest);
});
