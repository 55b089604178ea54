import { VOICE_CHOICES } from '../settings/voice.js';
/** The service's limits and form fields, as the sandbox enforces them (see README.md). */

/**
 * "10 MB" read as 10 MiB (10 × 1024 × 1024 bytes) for the `source_audio` part: the larger reading,
 * so the sandbox never refuses a file the client's local 10 MB check lets through.
 */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

/** Longest accepted audio: 60 minutes. */
export const MAX_DURATION_SEC = 3600;

/** Real-time factor of each model: processing takes `duration × rtf` (divided by --speed). */
export const MODEL_RTF = { mini: 0.25, advanced: 0.75 } as const;

/** Allowed values of the enumerated form fields: the interface's lists, under the service's field names. */
export const FIELD_CHOICES = {
  age: VOICE_CHOICES.age,
  gender: VOICE_CHOICES.gender,
  language: VOICE_CHOICES.language,
  model_id: VOICE_CHOICES.model,
  emotion: VOICE_CHOICES.emotion,
} as const;

export const FIELD_DEFAULTS = {
  age: 'young-adult',
  gender: 'random',
  language: 'en',
  model_id: 'mini',
} as const;

export const MAX_AVATAR_LENGTH = 64;

/** How long a signed URL stays valid. */
export const SIGNED_URL_TTL_SEC = 15 * 60;

/**
 * After answering early (413, 401, a fault), the rest of an upload is read and thrown away so the
 * client sees the answer; beyond this many bytes the connection is cut instead.
 */
export const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;
