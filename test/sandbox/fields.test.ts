import { describe, expect, it } from 'vitest';
import { checkFields } from '../../src/sandbox/fields.js';
import { FIELD_DEFAULTS, MAX_AVATAR_LENGTH } from '../../src/sandbox/limits.js';

const fields = (entries: Record<string, string>) => checkFields(new Map(Object.entries(entries)));

describe('checkFields', () => {
  it("no fields: the service's defaults", () => {
    expect(fields({})).toEqual({
      ok: true,
      fields: {
        age: FIELD_DEFAULTS.age,
        gender: FIELD_DEFAULTS.gender,
        language: FIELD_DEFAULTS.language,
        model_id: FIELD_DEFAULTS.model_id,
      },
    });
  });

  it('allowed values are kept; unknown field names are ignored', () => {
    const result = fields({ gender: 'f', model_id: 'advanced', avatar: 'Ann', nonsense: 'x' });
    expect(result).toMatchObject({ ok: true, fields: { gender: 'f', model_id: 'advanced', avatar: 'Ann' } });
    expect(result.ok && 'nonsense' in result.fields).toBe(false);
  });

  it.each(['age', 'gender', 'language', 'model_id', 'emotion'])(
    'a value outside the list of %s is refused, naming it',
    (name) => {
      const result = fields({ [name]: 'not-a-choice' });
      expect(result).toMatchObject({ ok: false, field: name });
      expect(!result.ok && result.message).toContain(`"${name}"`);
    },
  );

  it.each(['', '   ', 'x'.repeat(MAX_AVATAR_LENGTH + 1)])('avatar %j is refused', (avatar) => {
    expect(fields({ avatar })).toMatchObject({ ok: false, field: 'avatar' });
  });
});
