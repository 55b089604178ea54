/**
 * Control endpoints for tests, under `/__sandbox/` on the API listener: no auth, no faults, no
 * latency, not recorded. They exist only in the sandbox.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import * as v from 'valibot';
import { type FaultInjector, FaultRequestSchema } from './faults.js';
import { discardBody, pathOf, readJsonBodyOrReply, sendError, sendJson } from './http.js';
import type { Recorder } from './recorder.js';
import type { JobStore } from './store.js';

export const CONTROL_PREFIX = '/__sandbox/';

/** Settings a test changes while the sandbox runs. */
export interface RuntimeSettings {
  /**
   * How long the 202 of an asynchronous redaction is held once its job exists (ms): a client that
   * dies meanwhile never learns the id of a job that was made (the window of a crash mid-upload).
   */
  holdAcceptedMs: number;
}

const HoldSchema = v.strictObject({
  ms: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(600_000)),
});

/** Waits `ms` before an answer, or less if the client goes away. */
export async function holdAnswer(res: ServerResponse, ms: number): Promise<void> {
  if (ms <= 0 || res.destroyed) return;
  const gone = new AbortController();
  const onClose = () => gone.abort();
  res.once('close', onClose);
  await delay(ms, undefined, { signal: gone.signal }).catch(() => {});
  res.off('close', onClose);
}

export interface ControlDeps {
  recorder: Recorder;
  faults: FaultInjector;
  store: JobStore;
  runtime: RuntimeSettings;
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
      const parsed = await readControlBody(req, res, FaultRequestSchema, 'invalid fault list');
      if (!parsed) return;
      deps.faults.enqueue(parsed.next);
      return sendJson(res, 200, { queued: parsed.next.length, pending: deps.faults.pending().length });
    }
    case 'GET hold-accepted':
      return sendJson(res, 200, { ms: deps.runtime.holdAcceptedMs });
    case 'POST hold-accepted': {
      const parsed = await readControlBody(req, res, HoldSchema, 'invalid hold');
      if (!parsed) return;
      deps.runtime.holdAcceptedMs = parsed.ms;
      return sendJson(res, 200, { ms: parsed.ms });
    }
    default:
      discardBody(req);
      return sendError(res, 404, `no control endpoint ${route}`);
  }
}

/** Reads and validates a control request's JSON body; answers 400 itself and gives undefined when it is bad. */
async function readControlBody<S extends v.GenericSchema>(
  req: IncomingMessage,
  res: ServerResponse,
  schema: S,
  what: string,
): Promise<v.InferOutput<S> | undefined> {
  const read = await readJsonBodyOrReply(req, res);
  if (!read.ok) return undefined;
  const parsed = v.safeParse(schema, read.body);
  if (parsed.success) return parsed.output;
  const issue = parsed.issues[0];
  const where = issue.path?.map((p) => String(p.key)).join('.') ?? '';
  sendError(res, 400, `${what}${where ? ` at ${where}` : ''}: ${issue.message}`);
  return undefined;
}
