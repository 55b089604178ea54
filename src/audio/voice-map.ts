/**
 * How the request's fields become DSP settings. The table is documented in
 * ./README.md; keep the two in step.
 *
 * - `age` chooses the McAdams coefficient α (formant warp).
 * - `gender` chooses the pitch ratio, relative to the speaker's median F0.
 * - `emotion` widens or narrows the F0 contour around the median.
 * - `avatar` overrides age and gender with values derived from its hash.
 * - `random` values are drawn from the seed; `language` and `model_id` do not
 *   change the sandbox's DSP.
 */
import { seededRandom } from './prng.js';
import type { VoiceParams } from './types.js';

export const AGE_ALPHA = {
  'young-adult': 0.8,
  'middle-aged-adult': 0.88,
  'senior-adult': 1.1,
  /** Unset / `same`: the usual McAdams anonymisation strength, so the voice still changes. */
  same: 0.9,
} as const;
type AgeKey = keyof typeof AGE_ALPHA;

/** Ratio for `gender=opposite`, up for a low voice and 1/ratio down for a high one. */
export const OPPOSITE_RATIO = 1.5;
/** Median F0 below which a speaker is treated as male for `opposite`. */
export const MALE_FEMALE_SPLIT_HZ = 165;
export const FEMALE_TARGET_HZ = 210;
export const MALE_TARGET_HZ = 120;
/** Used when no voiced speech is found (noise, music, silence). */
export const ASSUMED_F0_HZ = 150;
export const RATIO_LIMITS = [0.5, 2] as const;

export const EMOTION_SHAPE = {
  happy: { contourExponent: 1.4, ratio: 1.06 },
  angry: { contourExponent: 1.25, ratio: 1.03 },
  calm: { contourExponent: 0.75, ratio: 0.98 },
  sad: { contourExponent: 0.6, ratio: 0.94 },
  neutral: { contourExponent: 1, ratio: 1 },
} as const;
type EmotionKey = keyof typeof EMOTION_SHAPE;

export const AVATAR_ALPHA_RANGE = [0.78, 1.12] as const;
export const AVATAR_F0_RANGE_HZ = [95, 245] as const;

export interface VoicePlan {
  /** McAdams coefficient. */
  alpha: number;
  /** Overall F0 ratio (1 = pitch unchanged). */
  pitchRatio: number;
  /** Exponent applied to F0 deviations from the median (1 = contour unchanged). */
  contourExponent: number;
  /** What the request resolved to, for logs and tests. */
  resolved: {
    age: AgeKey | 'avatar';
    gender: 'same' | 'opposite' | 'f' | 'm' | 'avatar';
    emotion: EmotionKey;
    medianF0: number | null;
  };
}

const norm = (v: string | undefined): string =>
  (v ?? '')
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, '-');

function resolveAge(value: string | undefined, seed: number): AgeKey {
  const v = norm(value);
  if (v === 'random') {
    const choices: AgeKey[] = ['young-adult', 'middle-aged-adult', 'senior-adult'];
    return choices[Math.floor(seededRandom(seed, 'age')() * choices.length)]!;
  }
  if (v.startsWith('young') || v === 'child' || v === 'teen') return 'young-adult';
  if (v.startsWith('middle') || v === 'adult') return 'middle-aged-adult';
  if (v.startsWith('senior') || v === 'old' || v === 'elderly') return 'senior-adult';
  return 'same';
}

function resolveGender(value: string | undefined, seed: number): 'same' | 'opposite' | 'f' | 'm' {
  const v = norm(value);
  if (v === 'random') return seededRandom(seed, 'gender')() < 0.5 ? 'f' : 'm';
  if (v === 'opposite') return 'opposite';
  if (v === 'f' || v === 'female' || v === 'woman') return 'f';
  if (v === 'm' || v === 'male' || v === 'man') return 'm';
  return 'same';
}

function resolveEmotion(value: string | undefined): EmotionKey {
  const v = norm(value);
  return v in EMOTION_SHAPE ? (v as EmotionKey) : 'neutral';
}

const clampRatio = (r: number): number => Math.min(RATIO_LIMITS[1], Math.max(RATIO_LIMITS[0], r));

/** True when the plan depends on the speaker's F0, i.e. the input must be pitch-tracked first. */
export function needsPitchAnalysis(params: VoiceParams): boolean {
  if (norm(params.avatar)) return true;
  if (resolveEmotion(params.emotion) !== 'neutral') return true;
  return resolveGender(params.gender, params.seed) !== 'same';
}

/** Resolves a request into DSP settings, given the speaker's median F0 (null if unknown). */
export function planVoice(params: VoiceParams, medianF0: number | null): VoicePlan {
  const f0 = medianF0 ?? ASSUMED_F0_HZ;
  const emotion = resolveEmotion(params.emotion);
  const shape = EMOTION_SHAPE[emotion];
  let alpha: number;
  let ratio: number;
  let age: VoicePlan['resolved']['age'];
  let gender: VoicePlan['resolved']['gender'];

  const avatar = (params.avatar ?? '').trim();
  if (avatar) {
    // Keyed by the avatar alone (not the seed): one avatar is one voice, across requests.
    const rnd = seededRandom('avatar', avatar);
    const [aLo, aHi] = AVATAR_ALPHA_RANGE;
    const [fLo, fHi] = AVATAR_F0_RANGE_HZ;
    alpha = aLo + (aHi - aLo) * rnd();
    ratio = clampRatio((fLo + (fHi - fLo) * rnd()) / f0);
    age = 'avatar';
    gender = 'avatar';
  } else {
    age = resolveAge(params.age, params.seed);
    gender = resolveGender(params.gender, params.seed);
    alpha = AGE_ALPHA[age];
    switch (gender) {
      case 'opposite':
        ratio = f0 < MALE_FEMALE_SPLIT_HZ ? OPPOSITE_RATIO : 1 / OPPOSITE_RATIO;
        break;
      case 'f':
        ratio = clampRatio(FEMALE_TARGET_HZ / f0);
        break;
      case 'm':
        ratio = clampRatio(MALE_TARGET_HZ / f0);
        break;
      default:
        ratio = 1;
    }
  }
  ratio *= shape.ratio;
  // Below 1 % the pitch stage would cost time for an inaudible change.
  if (Math.abs(ratio - 1) < 0.01) ratio = 1;
  return {
    alpha,
    pitchRatio: ratio,
    contourExponent: shape.contourExponent,
    resolved: { age, gender, emotion, medianF0 },
  };
}
