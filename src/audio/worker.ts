/**
 * Worker-thread entry: runs one redaction and posts the outcome (or the
 * error's name and message) back. Started by `runRedactionInWorker`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { redactFile } from './redact.js';
import type { WorkerJob, WorkerReply } from './worker-client.js';

const job = workerData as WorkerJob;
let reply: WorkerReply;
try {
  reply = { ok: true, outcome: await redactFile(job.inputPath, job.outputPath, job.params) };
} catch (err) {
  const e = err instanceof Error ? err : new Error(String(err));
  reply = { ok: false, name: e.name, message: e.message };
}
parentPort?.postMessage(reply);
