/** What the sandbox saw, for tests: every request on both listeners, and a few counters. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pathOf } from './http.js';

export type Listener = 'api' | 'files';

/** One request as `GET /__sandbox/requests` lists it; token values are never kept. */
export interface RequestRecord {
  listener: Listener;
  method: string;
  /** The path, without the query (a signed URL's signature is not kept either). */
  path: string;
  hadAuthorization: boolean;
  /** The status answered; null while no answer has been sent, 0 when the connection was cut without one. */
  status: number | null;
}

export interface SandboxStats {
  /** Redaction requests whose `source_audio` part started to arrive. */
  uploads: number;
  /** Bytes of `source_audio` received, over all uploads. */
  uploadBytes: number;
  /** Redactions answered with the audio itself. */
  syncResults: number;
  /** Redactions accepted as asynchronous jobs. */
  asyncJobs: number;
  /** Uploads refused with 413. */
  tooLarge: number;
  /** Requests to the file listener refused because they carried an Authorization header. */
  filesAuthorizationRefused: number;
  /** Answers replaced by an injected fault. */
  faultsInjected: number;
  /** Background redactions running now. */
  processing: number;
}

interface Entry {
  record: RequestRecord;
  res: ServerResponse | undefined;
}

/**
 * Requests kept for `GET /__sandbox/requests`, the latest: a sandbox left running (a developer's,
 * a CI service's) kept every request it ever saw, and grew for as long as it ran.
 */
export const KEPT_REQUESTS = 10_000;

export class Recorder {
  readonly #entries: Entry[] = [];
  readonly stats: SandboxStats = {
    uploads: 0,
    uploadBytes: 0,
    syncResults: 0,
    asyncJobs: 0,
    tooLarge: 0,
    filesAuthorizationRefused: 0,
    faultsInjected: 0,
    processing: 0,
  };

  /** Starts the record of a request; its status is read from the response once it is sent. */
  track(listener: Listener, req: IncomingMessage, res: ServerResponse): void {
    const entry: Entry = {
      record: {
        listener,
        method: req.method ?? '',
        path: pathOf(req),
        hadAuthorization: req.headers.authorization !== undefined,
        status: null,
      },
      res,
    };
    this.#entries.push(entry);
    // Dropped by halves, so that a busy sandbox does not shift the array at every request.
    if (this.#entries.length > KEPT_REQUESTS * 1.5)
      this.#entries.splice(0, this.#entries.length - KEPT_REQUESTS);
    res.once('close', () => {
      entry.record.status = res.headersSent ? res.statusCode : 0;
      entry.res = undefined;
    });
  }

  requests(): RequestRecord[] {
    return this.#entries.map(({ record, res }) => ({
      ...record,
      status: res ? (res.headersSent ? res.statusCode : null) : record.status,
    }));
  }

  clear(): void {
    this.#entries.length = 0;
  }
}
