/** What the caller asked for; mirrors the service's form fields. */
export interface VoiceParams {
  age?: string;
  gender?: string;
  language?: string;
  model_id?: string;
  emotion?: string;
  avatar?: string;
  /** Deterministic seed: same input, params and seed give identical output. */
  seed: number;
}

export interface RedactionOutcome {
  /** Duration of the decoded input, in seconds. */
  inputDurationSec: number;
  /** Samples written to the output WAV (16-bit PCM mono 16 kHz). */
  outputSamples: number;
}

/** A stage of the voice-change chain, read strictly in order (pull streaming). */
export interface SequentialSource {
  /** Fills `dst` with the next `dst.length` samples. */
  read(dst: Float32Array): void;
}
