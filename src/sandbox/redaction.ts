/** POST /api/speech-to-speech-biometric-redaction: upload, checks, then a synchronous or asynchronous answer. */
import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { AudioDecodeError, measureAudioDuration, runRedactionInWorker } from '../audio/index.js';
import { apart, exactSeconds } from '../output/format.js';
import { holdAnswer, type RuntimeSettings } from './control.js';
import { checkFields } from './fields.js';
import { discardBody, sendError, sendJson } from './http.js';
import { MAX_DURATION_SEC, MODEL_RTF } from './limits.js';
import { resultNameFor, sniffAudioKind, UNNAMED_UPLOAD, voiceSeed } from './naming.js';
import type { Processor } from './processor.js';
import type { Recorder } from './recorder.js';
import type { JobStore } from './store.js';
import { receiveUpload } from './upload.js';

export interface RedactionDeps {
  store: JobStore;
  processor: Processor;
  recorder: Recorder;
  syncLimitSec: number;
  speed: number;
  seed: number;
  /** Changed at run time by the control endpoints. */
  runtime?: RuntimeSettings;
  debug: (line: string) => void;
}

export async function handleRedaction(
  req: IncomingMessage,
  res: ServerResponse,
  token: string,
  deps: RedactionDeps,
): Promise<void> {
  const { store, recorder } = deps;
  const outcome = await receiveUpload(req, {
    tmpPath: () => store.tmpPath('upload'),
    onFileStart: () => recorder.stats.uploads++,
    onBytes: (n) => {
      recorder.stats.uploadBytes += n;
    },
  });
  if (outcome.kind === 'aborted') return;
  if (outcome.kind === 'refused') {
    if (outcome.status === 413) recorder.stats.tooLarge++;
    deps.debug(`redaction refused (${outcome.status}): ${outcome.message}`);
    sendError(res, outcome.status, outcome.message);
    discardBody(req);
    return;
  }
  const { fields: received, file } = outcome;
  try {
    if (!file) {
      sendError(res, 400, 'the file field "source_audio" is missing');
      return;
    }
    const checked = checkFields(received);
    if (!checked.ok) {
      sendError(res, 400, checked.message);
      return;
    }
    let duration: number;
    try {
      duration = await measureAudioDuration(file.path);
    } catch (error) {
      deps.debug(`undecodable upload: ${(error as Error).message}`);
      sendError(res, 422, 'the file is not decodable WAV or MP3 audio, or it has no samples');
      return;
    }
    if (!(duration > 0)) {
      sendError(res, 422, 'the audio has no duration: it must be longer than 0 seconds');
      return;
    }
    if (duration > MAX_DURATION_SEC) {
      const [lasts, limit] = apart([duration, MAX_DURATION_SEC], (s) => `${Math.round(s)} s`, exactSeconds);
      sendError(res, 422, `the audio lasts ${lasts}: longer than the 60-minute limit (${limit})`);
      return;
    }
    const seed = voiceSeed(deps.seed, file.sha256);
    const sourceName = file.name === '' ? UNNAMED_UPLOAD : file.name;

    if (duration <= deps.syncLimitSec) {
      await answerSynchronously(res, file.path, sourceName, { ...checked.fields, seed }, deps);
      return;
    }

    const kind = await sniffAudioKind(file.path);
    const readyAt = Date.now() + (duration * MODEL_RTF[checked.fields.model_id] * 1000) / deps.speed;
    const job = await store.create(token, {
      status: 'processing',
      fields: { ...checked.fields },
      seed,
      sourceDurationSec: duration,
      readyAt,
    });
    await store.addFile(job, file.path, {
      file_name: sourceName,
      audio_duration: duration,
      disk: `source${kind.extension}`,
      contentType: kind.contentType,
      role: 'source',
    });
    recorder.stats.asyncJobs++;
    deps.processor.enqueue(job);
    await holdAnswer(res, deps.runtime?.holdAcceptedMs ?? 0);
    sendJson(res, 202, { job_id: job.job_id, status: 'accepted' });
  } finally {
    // Moved into the job when accepted; otherwise the upload is thrown away.
    if (file) await rm(file.path, { force: true }).catch(() => {});
  }
}

async function answerSynchronously(
  res: ServerResponse,
  inputPath: string,
  sourceName: string,
  params: Parameters<typeof runRedactionInWorker>[2],
  deps: RedactionDeps,
): Promise<void> {
  const output = `${deps.store.tmpPath('sync')}.wav`;
  try {
    try {
      await runRedactionInWorker(inputPath, output, params);
    } catch (error) {
      if (error instanceof AudioDecodeError) {
        sendError(res, 422, `the audio could not be decoded: ${error.message}`);
      } else {
        deps.debug(`redaction failed: ${(error as Error).stack ?? error}`);
        sendError(res, 500, 'the redaction failed');
      }
      return;
    }
    const { size } = await stat(output);
    res.writeHead(200, {
      'content-type': 'audio/wav',
      'content-length': size,
      'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(resultNameFor(sourceName))}`,
    });
    deps.recorder.stats.syncResults++;
    await pipeline(createReadStream(output), res).catch(() => {});
  } finally {
    await rm(output, { force: true }).catch(() => {});
  }
}
