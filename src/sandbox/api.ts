/** The API listener: latency, faults and auth in front of the interface's endpoints. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { authenticate } from './auth.js';
import { answerWithFault, type FaultInjector } from './faults.js';
import { discardBody, pathOf, sendError } from './http.js';
import { createJob, downloadUrl, jobContent, listJobs } from './jobs.js';
import { handleRedaction, type RedactionDeps } from './redaction.js';
import type { RateLimiter } from './rate-limit.js';
import type { UrlSigner } from './signing.js';

export interface ApiDeps extends RedactionDeps {
  tokens: ReadonlySet<string>;
  faults: FaultInjector;
  signer: UrlSigner;
  latencyMs: number;
  rateLimiter?: RateLimiter | undefined;
}

const REDACTION_PATH = '/api/speech-to-speech-biometric-redaction';

function methodNotAllowed(req: IncomingMessage, res: ServerResponse, allow: string): void {
  sendError(res, 405, `${req.method} is not allowed here (allowed: ${allow})`, { allow });
  discardBody(req);
}

function segment(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** Handles one request to an `/api/...` (or unknown) path on the API listener. */
export async function handleApi(req: IncomingMessage, res: ServerResponse, deps: ApiDeps): Promise<void> {
  const path = pathOf(req);
  if (deps.latencyMs > 0) await delay(deps.latencyMs);

  const fault = deps.faults.take('api', path);
  if (fault) {
    deps.recorder.stats.faultsInjected++;
    answerWithFault(res, fault);
    discardBody(req);
    return;
  }

  const auth = authenticate(req, deps.tokens);
  if (!auth.ok) {
    sendError(res, auth.status, auth.message);
    discardBody(req);
    return;
  }
  const { token } = auth;
  const method = req.method ?? '';
  const retryAfter = deps.rateLimiter?.take(token);
  if (retryAfter !== undefined) {
    sendError(
      res,
      429,
      `rate limit exceeded: at most ${deps.rateLimiter?.limit.requests} requests per token and period`,
      {
        'retry-after': String(retryAfter),
      },
    );
    discardBody(req);
    return;
  }

  if (path === '/api/jobs') {
    if (method === 'GET') return listJobs(res, token, deps.store);
    if (method === 'POST') {
      discardBody(req);
      return createJob(res, token, deps.store);
    }
    return methodNotAllowed(req, res, 'GET, POST');
  }
  if (path === REDACTION_PATH) {
    if (method === 'POST') return handleRedaction(req, res, token, deps);
    return methodNotAllowed(req, res, 'POST');
  }
  const content = /^\/api\/jobs\/([^/]+)\/content$/.exec(path);
  if (content) {
    if (method !== 'GET') return methodNotAllowed(req, res, 'GET');
    const jobId = segment(content[1]!);
    if (jobId === undefined) return sendError(res, 404, 'job not found');
    return jobContent(res, token, jobId, deps.store);
  }
  const download = /^\/api\/jobs\/([^/]+)\/files\/download-url$/.exec(path);
  if (download) {
    if (method !== 'POST') return methodNotAllowed(req, res, 'POST');
    const jobId = segment(download[1]!);
    if (jobId === undefined) {
      discardBody(req);
      return sendError(res, 404, 'job not found');
    }
    return downloadUrl(req, res, token, jobId, deps.store, deps.signer);
  }
  discardBody(req);
  sendError(res, 404, `no endpoint ${method} ${path}`);
}
