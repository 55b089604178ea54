/** The whole job for one file: decode, change the voice, write the WAV. */
import { rm } from 'node:fs/promises';
import { decodeToWorkingRate, WORKING_RATE } from './decode.js';
import { PeakLimiter } from './limiter.js';
import type { RedactionOutcome, VoiceParams } from './types.js';
import { createVoiceChanger } from './voice-change.js';
import { WavWriter } from './wav-encode.js';

/** One second per block: each block's write is awaited, which also lets other work on the thread run. */
const BLOCK = WORKING_RATE;

export async function redactFile(
  inputPath: string,
  outputPath: string,
  params: VoiceParams,
): Promise<RedactionOutcome> {
  const decoded = await decodeToWorkingRate(inputPath);
  const x = decoded.samples;
  const { source } = createVoiceChanger(x, params);
  const limiter = new PeakLimiter();
  const writer = await WavWriter.create(outputPath, WORKING_RATE);
  try {
    const block = new Float32Array(BLOCK);
    for (let done = 0; done < x.length; done += BLOCK) {
      const n = Math.min(BLOCK, x.length - done);
      const view = block.subarray(0, n);
      source.read(view);
      await writer.write(limiter.process(view));
    }
    await writer.write(limiter.flush());
    await writer.close();
  } catch (err) {
    await writer.abort().catch(() => {});
    await rm(outputPath, { force: true }).catch(() => {});
    throw err;
  }
  return { inputDurationSec: decoded.durationSec, outputSamples: writer.samplesWritten };
}
