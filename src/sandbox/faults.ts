import { STATUS_CODES } from 'node:http';
/** Fault injection: a random share of API requests (--fail-rate) and faults queued by tests. */
import type { ServerResponse } from 'node:http';
import * as v from 'valibot';
import { mulberry32 } from '../audio/prng.js';
import { sendError, sendText } from './http.js';
import type { Listener } from './recorder.js';

export const FaultSchema = v.strictObject({
  /** Status to answer with (400 to 599); ignored when `reset` is set. */
  status: v.optional(v.pipe(v.number(), v.integer(), v.minValue(400), v.maxValue(599)), 503),
  /** An HTML page (as a proxy would send) instead of the JSON error body. */
  html: v.optional(v.boolean(), false),
  /**
   * Value of Retry-After; by default "0" for 429 and 503, absent otherwise. Any text a header can
   * carry (an invalid value tests a client too), but no line break or control character.
   */
  retryAfter: v.optional(
    v.union([
      v.pipe(
        v.string(),
        v.regex(/^[\t\x20-\x7e\x80-\xff]*$/, 'a header value cannot hold control characters'),
      ),
      v.number(),
    ]),
  ),
  /** Message of the JSON error body. */
  message: v.optional(v.string()),
  /** Cut the connection without answering (a network error for the client). */
  reset: v.optional(v.boolean(), false),
  /** Which listener the fault is for (default the API). */
  listener: v.optional(v.picklist(['api', 'files']), 'api'),
  /** Only a request whose path starts with this takes the fault; others pass it by. */
  path: v.optional(v.string()),
});
export type Fault = v.InferOutput<typeof FaultSchema>;
export type FaultInput = v.InferInput<typeof FaultSchema>;

export const FaultRequestSchema = v.strictObject({ next: v.array(FaultSchema) });

export class FaultInjector {
  readonly #queue: Fault[] = [];
  readonly #random: () => number;

  constructor(
    readonly failRate: number,
    seed: number,
  ) {
    this.#random = mulberry32(seed);
  }

  enqueue(faults: readonly Fault[]): void {
    this.#queue.push(...faults);
  }

  clear(): void {
    this.#queue.length = 0;
  }

  pending(): readonly Fault[] {
    return this.#queue;
  }

  /**
   * The fault for this request, if any: the first queued one that matches, else (API only) a 503
   * with probability --fail-rate. One random draw per API request keeps the sequence reproducible.
   */
  take(listener: Listener, path: string): Fault | undefined {
    const index = this.#queue.findIndex(
      (fault) => fault.listener === listener && (fault.path === undefined || path.startsWith(fault.path)),
    );
    const draw = listener === 'api' ? this.#random() : 1;
    if (index !== -1) return this.#queue.splice(index, 1)[0];
    if (draw < this.failRate) {
      return { status: 503, html: false, reset: false, listener, message: 'injected fault (--fail-rate)' };
    }
    return undefined;
  }
}

/** Answers with the fault (or cuts the connection). */
export function answerWithFault(res: ServerResponse, fault: Fault): void {
  if (fault.reset) {
    res.socket?.destroy();
    res.destroy();
    return;
  }
  const headers: Record<string, string> = {};
  const retryAfter = fault.retryAfter ?? (fault.status === 503 || fault.status === 429 ? '0' : undefined);
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  if (fault.html) {
    const title = `${fault.status} ${STATUS_CODES[fault.status] ?? 'Error'}`;
    sendText(
      res,
      fault.status,
      'text/html; charset=utf-8',
      `<html><body><h1>${title}</h1></body></html>`,
      headers,
    );
    return;
  }
  sendError(res, fault.status, fault.message ?? `injected fault (${fault.status})`, headers);
}
