import { expect, test } from 'vitest';
import { checkVoiceValue, VOICE_CHOICES, voiceFormFields } from '../../src/settings/voice.js';

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

test('checkVoiceValue accepts every listed value and names the allowed ones otherwise', () => {
  for (const [name, values] of Object.entries(VOICE_CHOICES)) {
    for (const value of values)
      expect(checkVoiceValue(name as keyof typeof VOICE_CHOICES, value)).toBeUndefined();
  }
  expect(checkVoiceValue('language', 'nl')).toBe('--language must be one of en, fr, it, es, de (got "nl")');
  expect(checkVoiceValue('gender', 'F')).toContain('--gender must be one of');
});
