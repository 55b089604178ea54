/** The jobs endpoints: list, create, content, download URL. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJsonBodyOrReply, sendError, sendJson } from './http.js';
import type { UrlSigner } from './signing.js';
import type { JobStore } from './store.js';

const JOB_NOT_FOUND = 'job not found';

export function listJobs(res: ServerResponse, token: string, store: JobStore): void {
  const jobs = store.listFor(token).map(({ job_id, token, created_at }) => ({ job_id, token, created_at }));
  sendJson(res, 200, { jobs });
}

export async function createJob(res: ServerResponse, token: string, store: JobStore): Promise<void> {
  const job = await store.create(token);
  sendJson(res, 201, { job_id: job.job_id });
}

export function jobContent(res: ServerResponse, token: string, jobId: string, store: JobStore): void {
  const job = store.getOwned(jobId, token);
  if (!job) {
    sendError(res, 404, JOB_NOT_FOUND);
    return;
  }
  sendJson(res, 200, { jobContent: store.contentOf(job, Date.now()) });
}

export async function downloadUrl(
  req: IncomingMessage,
  res: ServerResponse,
  token: string,
  jobId: string,
  store: JobStore,
  signer: UrlSigner,
): Promise<void> {
  const read = await readJsonBodyOrReply(req, res);
  if (!read.ok) return;
  const fileName = (read.body as { fileName?: unknown } | undefined)?.fileName;
  if (typeof fileName !== 'string' || fileName === '') {
    sendError(res, 400, 'the body must be JSON with a non-empty string "fileName"');
    return;
  }
  const job = store.getOwned(jobId, token);
  if (!job) {
    sendError(res, 404, JOB_NOT_FOUND);
    return;
  }
  const file = store.visibleFiles(job, Date.now()).find((f) => f.file_name === fileName);
  if (!file) {
    sendError(res, 404, `the job has no file named "${fileName.slice(0, 200)}"`);
    return;
  }
  sendJson(res, 200, { signedUrl: signer.sign(job.job_id, file.file_name) });
}
