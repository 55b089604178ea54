import { describe, expect, it } from 'vitest';
import { planVoice } from '../../src/audio/voice-map.js';

describe('request mapping', () => {
  it('gender=opposite goes up for a low voice and down for a high one', () => {
    expect(planVoice({ seed: 1, gender: 'opposite' }, 110).pitchRatio).toBeCloseTo(1.5, 9);
    expect(planVoice({ seed: 1, gender: 'opposite' }, 220).pitchRatio).toBeCloseTo(1 / 1.5, 9);
  });

  it('f and m target 210 Hz and 120 Hz with the ratio clamped to [0.5, 2]', () => {
    expect(planVoice({ seed: 1, gender: 'f' }, 140).pitchRatio).toBeCloseTo(1.5, 9);
    expect(planVoice({ seed: 1, gender: 'f' }, 80).pitchRatio).toBe(2);
    expect(planVoice({ seed: 1, gender: 'm' }, 200).pitchRatio).toBeCloseTo(0.6, 9);
    expect(planVoice({ seed: 1, gender: 'm' }, 300).pitchRatio).toBe(0.5);
  });

  it('age chooses α; unset and unknown values still warp the formants', () => {
    expect(planVoice({ seed: 1, age: 'young-adult' }, 120).alpha).toBe(0.8);
    expect(planVoice({ seed: 1, age: 'Middle_Aged Adult' }, 120).alpha).toBe(0.88);
    expect(planVoice({ seed: 1, age: 'senior-adult' }, 120).alpha).toBe(1.1);
    expect(planVoice({ seed: 1 }, 120).alpha).toBe(0.9);
    expect(planVoice({ seed: 1, age: 'martian' }, 120).alpha).toBe(0.9);
  });

  it('random draws depend on the seed only, and cover every choice', () => {
    const ages = new Set<string>();
    const genders = new Set<string>();
    for (let seed = 0; seed < 200; seed++) {
      const plan = planVoice({ seed, age: 'random', gender: 'random' }, 120);
      expect(planVoice({ seed, age: 'random', gender: 'random' }, 120)).toEqual(plan);
      ages.add(plan.resolved.age);
      genders.add(plan.resolved.gender);
    }
    expect([...ages].sort()).toEqual(['middle-aged-adult', 'senior-adult', 'young-adult']);
    expect([...genders].sort()).toEqual(['f', 'm']);
  });

  it('language and model_id do not change the plan', () => {
    expect(planVoice({ seed: 5, gender: 'f', language: 'de', model_id: 'x' }, 120)).toEqual(
      planVoice({ seed: 5, gender: 'f' }, 120),
    );
  });
});
