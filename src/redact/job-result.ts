/**
 * A finished job's result, in two requests among the run's few at once (engine.request): its link
 * from the service, then its bytes from the signed URL's host (maybe another), verified against the
 * input and written like a synchronous result (verify.ts). A 401/403 of that host (an expired link) is
 * not taken for a refused token: only the link's request goes through the token gate.
 */
import { type Engine, requestSignals } from './engine.js';
import { resultSink } from './verify.js';
import type { CollectWork } from './work.js';

/** The signed URL of the job's result file `fileName`. */
export function resultLink(engine: Engine, jobId: string, fileName: string): Promise<URL> {
  return engine.request(() =>
    engine.gate.run(() => engine.client.downloadUrl(jobId, fileName, requestSignals(engine)), engine.abort),
  );
}

/** Downloads the result at `url`, verified, puts it in place, and records the file done. */
export async function saveResult(
  engine: Engine,
  work: CollectWork,
  url: URL,
  durationSec: number,
): Promise<void> {
  const { entry, jobId } = work;
  const written = await engine.request(() =>
    engine.client.downloadSigned(
      url,
      resultSink(
        { folder: engine.outputFolder, outputRel: entry.outputRel, beforePublish: engine.confirmLock },
        {
          durationSec,
          tolerance: engine.tolerance,
          upload: work.inputSha256 ? { sha256: work.inputSha256, path: entry.input } : undefined,
        },
        engine.abort,
      ),
      requestSignals(engine),
    ),
  );
  await engine.recorder.done(entry, work.identity, {
    via: 'job',
    jobId,
    bytes: written.bytes,
    outputSha256: written.sha256,
    inputSha256: work.inputSha256,
  });
}
