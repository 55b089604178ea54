/** Checks the form fields of a redaction request and fills in the service's defaults. */
import { FIELD_CHOICES, FIELD_DEFAULTS, MAX_AVATAR_LENGTH } from './limits.js';

export type FieldName = keyof typeof FIELD_CHOICES | 'avatar';

export interface RedactionFields {
  age: string;
  gender: string;
  language: string;
  model_id: 'mini' | 'advanced';
  emotion?: string;
  avatar?: string;
}

export type FieldsResult =
  { ok: true; fields: RedactionFields } | { ok: false; field: string; message: string };

const isChoice = (name: keyof typeof FIELD_CHOICES, value: string) =>
  (FIELD_CHOICES[name] as readonly string[]).includes(value);

/**
 * `received` holds the text fields as sent. Unknown field names are ignored, as a web form
 * would; a known one with a value outside its list is refused, naming the field.
 */
export function checkFields(received: ReadonlyMap<string, string>): FieldsResult {
  for (const name of Object.keys(FIELD_CHOICES) as (keyof typeof FIELD_CHOICES)[]) {
    const value = received.get(name);
    if (value !== undefined && !isChoice(name, value)) {
      return {
        ok: false,
        field: name,
        message: `invalid value for field "${name}": "${value.slice(0, 40)}" (allowed: ${FIELD_CHOICES[name].join(', ')})`,
      };
    }
  }
  const avatar = received.get('avatar');
  if (avatar !== undefined && (avatar.trim() === '' || avatar.length > MAX_AVATAR_LENGTH)) {
    return {
      ok: false,
      field: 'avatar',
      message: `invalid value for field "avatar": it must be 1 to ${MAX_AVATAR_LENGTH} characters`,
    };
  }
  const fields: RedactionFields = {
    age: received.get('age') ?? FIELD_DEFAULTS.age,
    gender: received.get('gender') ?? FIELD_DEFAULTS.gender,
    language: received.get('language') ?? FIELD_DEFAULTS.language,
    model_id: (received.get('model_id') ?? FIELD_DEFAULTS.model_id) as RedactionFields['model_id'],
  };
  const emotion = received.get('emotion');
  if (emotion !== undefined) fields.emotion = emotion;
  if (avatar !== undefined) fields.avatar = avatar;
  return { ok: true, fields };
}
