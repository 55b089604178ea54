import { type BadValueError, choiceError } from './bad-value.js';

/** The service's target-voice fields and their allowed values (service interface, redaction request). */
export const VOICE_CHOICES = {
  age: ['young-adult', 'middle-aged-adult', 'senior-adult', 'same', 'random'],
  gender: ['same', 'opposite', 'random', 'f', 'm'],
  language: ['en', 'fr', 'it', 'es', 'de'],
  model: ['mini', 'advanced'],
  emotion: ['happy', 'default', 'sad'],
} as const;

export type VoiceSettingName = keyof typeof VOICE_CHOICES;
export const VOICE_SETTING_NAMES = Object.keys(VOICE_CHOICES) as VoiceSettingName[];

/** Target-voice settings as given by the user; unset ones are not sent, so the service's defaults apply. */
export type VoiceSettings = Partial<Record<VoiceSettingName, string>> & { avatar?: string };

/** The multipart form fields of a redaction request, in the service's names. */
export function voiceFormFields(voice: VoiceSettings): Record<string, string> {
  const fields: Record<string, string> = {};
  if (voice.age) fields.age = voice.age;
  if (voice.gender) fields.gender = voice.gender;
  if (voice.language) fields.language = voice.language;
  if (voice.model) fields.model_id = voice.model;
  if (voice.emotion) fields.emotion = voice.emotion;
  if (voice.avatar) fields.avatar = voice.avatar;
  return fields;
}

/**
 * The refusal of `value` for `name`, when it is not allowed: the allowed values, and the nearest where
 * one is obvious. `what` names the value as the user gave it: the flag by default, the bare key for
 * `config set` and the config file.
 */
export function voiceValueError(
  name: VoiceSettingName,
  value: string,
  what: string = `--${name}`,
): BadValueError | undefined {
  const allowed: readonly string[] = VOICE_CHOICES[name];
  if (allowed.includes(value)) return undefined;
  return choiceError(what, value, allowed);
}
