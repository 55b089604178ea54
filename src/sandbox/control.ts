/**
 * Control endpoints for tests, under `/__sandbox/` on the API listener: no auth, no faults, no
 * latency, not recorded. They exist only in the sandbox.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as v from 'valibot';
import { type FaultInjector, FaultRequestSchema } from './faults.js';
import { BodyError, discardBody, pathOf, readJsonBody, sendError, sendJson } from './http.js';
import type { Recorder } from './recorder.js';
import type { JobStore } from './store.js';

export const CONTROL_PREFIX = '/__sandbox/';

export interface ControlDeps {
  recorder: Recorder;
  faults: FaultInjector;
  store: JobStore;
  info: () => Record<string, unknown>;
}

export async function handleControl(
  req: IncomingMessage,
  res: ServerResponse,
  deps: ControlDeps,
): Promise<void> {
  const route = `${req.method} ${pathOf(req).slice(CONTROL_PREFIX.length)}`;
  switch (route) {
    case 'GET requests':
      return sendJson(res, 200, deps.recorder.requests());
    case 'DELETE requests':
      deps.recorder.clear();
      return sendJson(res, 200, { cleared: true });
    case 'GET stats':
      return sendJson(res, 200, { ...deps.recorder.stats, jobs: deps.store.all().length });
    case 'GET info':
      return sendJson(res, 200, deps.info());
    case 'GET faults':
      return sendJson(res, 200, { next: deps.faults.pending() });
    case 'DELETE faults':
      deps.faults.clear();
      return sendJson(res, 200, { next: [] });
    case 'POST faults': {
      let body: unknown;
      try {
        body = await readJsonBody(req);
      } catch (error) {
        if (!(error instanceof BodyError)) throw error;
        return sendError(res, error.status, error.message);
      }
      const parsed = v.safeParse(FaultRequestSchema, body);
      if (!parsed.success) {
        const issue = parsed.issues[0];
        const where = issue.path?.map((p) => String(p.key)).join('.') ?? '';
        return sendError(res, 400, `invalid fault list${where ? ` at ${where}` : ''}: ${issue.message}`);
      }
      deps.faults.enqueue(parsed.output.next);
      return sendJson(res, 200, { queued: parsed.output.next.length, pending: deps.faults.pending().length });
    }
    default:
      discardBody(req);
      return sendError(res, 404, `no control endpoint ${route}`);
  }
}
