/**
 * A stand-in service for crash tests, on a scripted server: it answers each upload at once, either
 * with the redacted WAV (synchronous) or with a job whose result is ready after a few reads of its
 * content, and keeps every upload it received (by the input's SHA-256 and upload name) and every job
 * it made. Every job is listed, and its content names the upload it came from, so a later run can
 * always find it. The answer for an input is derived from its bytes (`redactedOf`): a result saved
 * under another input's name is caught.
 *
 * Each run of vredact sends a token of its own (`ChaosRun.token`), and each signed download URL names
 * its run, so the service tells apart the requests of runs that go on at once (shards). A run's
 * process can be signalled at its k-th request, before that request is answered (the service has
 * taken the upload in, made its job, and the client has not heard) or just after.
 *
 * By the test's choice (`fault`, `readFault`), an upload or a read of a job fails now and then: a
 * 503 (not taken), a 500 (not taken, though vredact cannot know), a 502 after taking it in, a
 * connection dropped before or after taking it in, an answer cut short.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { until } from './e2e.js';
import { type ScriptedServer, sendJson, startScriptedServer } from './scripted-server.js';

export type AnswerKind = 'sync' | 'job';

/**
 * How an upload fails. Taken: the service did the work (made the job, or redacted the file whose
 * answer is then lost). Only `refused-503` tells vredact the upload was not taken.
 */
export type UploadFault = 'refused-503' | 'failed-500' | 'taken-502' | 'dropped' | 'taken-dropped' | 'cut';

/** How a read of a job's content or a download of its result fails: vredact asks again. */
export type ReadFault = 'failed-500' | 'dropped' | 'cut';

const TAKEN: ReadonlySet<UploadFault | undefined> = new Set([undefined, 'taken-502', 'taken-dropped', 'cut']);

export interface ChaosUpload {
  /** The run it came from (`ChaosRun.id`). */
  run: number;
  inputSha256: string;
  uploadName: string;
  answer: AnswerKind;
  /** Set when the service made a job of it, answered or not. */
  jobId?: string;
  /** How it failed; undefined when it was answered whole. */
  fault?: UploadFault;
}

export interface ChaosJob {
  jobId: string;
  run: number;
  inputSha256: string;
  uploadName: string;
  createdAt: string;
  result: Buffer;
  contentReads: number;
  readyAfterReads: number;
  /** Reads of its content and downloads of its result, failed or not. */
  reads: number;
}

export interface ChaosTrigger {
  /** Signals the run's process at its `atRequest`-th request (1 for the first). */
  atRequest: number;
  moment: 'before-answer' | 'after-answer';
  signal: NodeJS.Signals;
}

export interface ChaosRun {
  /** Counted by `beginRun` from 0. */
  id: number;
  /** The token the run's process must send: the service knows the run's requests by it. */
  token: string;
  /**
   * How to signal the run's process: a child process's own `kill`, which never signals a process it
   * has seen end (whose pid may be another's by then).
   */
  attach(kill: (signal: NodeJS.Signals) => boolean): void;
  /** Whether the run's process was signalled (by its trigger or by `signal`). */
  signalled(): NodeJS.Signals | undefined;
  /** Signals the run's process now, unless it is gone. */
  signal(signal: NodeJS.Signals): void;
  /**
   * Waits, once its process has ended, until every request of it that the service will ever see has
   * been taken in: no connection of it is open, nor one whose first request has not come whole.
   */
  quiet(): Promise<void>;
}

export interface ChaosService {
  baseUrl: string;
  uploads: ChaosUpload[];
  jobs: Map<string, ChaosJob>;
  /** Starts a run: its token, to start its process with, which is then given to `attach`. */
  beginRun(trigger?: ChaosTrigger): ChaosRun;
  close(): Promise<void>;
}

export interface ChaosOptions {
  answer: (inputSha256: string) => AnswerKind;
  /** How many reads of a job's content find it still processing. */
  readsBeforeReady: (inputSha256: string) => number;
  /** How the `attempt`-th upload (from 0, over every run) of an input fails, if it does. */
  fault?: (inputSha256: string, attempt: number) => UploadFault | undefined;
  /** How the `read`-th read (from 0) of a job fails, if it does. */
  readFault?: (inputSha256: string, read: number) => ReadFault | undefined;
  /** How long a download of a job's result holds after its first half, for stops mid-download. */
  downloadHoldMs?: (inputSha256: string) => number;
}

export const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** The service's answer for an input WAV: the same header, every byte of its audio inverted. */
export function redactedOf(wav: Buffer): Buffer {
  const start = wav.indexOf('data', 12, 'latin1') + 8;
  const result = Buffer.from(wav);
  for (let i = start; i < result.length; i++) result[i] = 255 - (result[i] as number);
  return result;
}

function sendWav(res: ServerResponse, wav: Buffer, holdMs = 0): void {
  res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length });
  if (holdMs <= 0) return void res.end(wav);
  res.write(wav.subarray(0, wav.length >> 1));
  const hold = setTimeout(() => res.end(wav.subarray(wav.length >> 1)), holdMs);
  res.on('close', () => clearTimeout(hold));
}

/** Sends the first half of an answer that declares its whole length, then drops the connection. */
function sendCut(res: ServerResponse, status: number, type: string, body: Buffer): void {
  res.writeHead(status, { 'content-type': type, 'content-length': body.length });
  res.write(body.subarray(0, body.length >> 1), () => res.socket?.destroy());
}

/** What an answer becomes under a fault: the answer itself when there is none. */
function faulted(res: ServerResponse, fault: ReadFault | 'taken-502' | 'taken-dropped', whole: () => void) {
  return (): void => {
    if (fault === 'failed-500') sendJson(res, 500, { error: 500, message: 'database error' });
    else if (fault === 'taken-502') sendJson(res, 502, { error: 502, message: 'bad gateway' });
    else if (fault === 'dropped' || fault === 'taken-dropped') res.socket?.destroy();
    else whole();
  };
}

const RUN_TOKEN = /^Bearer vr_test_chaos_(\d+)$/;

export async function startChaosService(options: ChaosOptions): Promise<ChaosService> {
  const uploads: ChaosUpload[] = [];
  const jobs = new Map<string, ChaosJob>();
  const attempts = new Map<string, number>();
  interface RunState {
    kill: (signal: NodeJS.Signals) => boolean;
    trigger: ChaosTrigger | undefined;
    requests: number;
    sent: NodeJS.Signals | undefined;
  }
  const runs: RunState[] = [];
  /** The run each connection's latest request came from. */
  const runOfSocket = new WeakMap<Socket, number>();
  const signal = (state: RunState, which: NodeJS.Signals) => {
    if (state.kill(which)) state.sent ??= which;
  };

  const upload = (res: ServerResponse, body: Buffer, run: number): (() => void) => {
    const uploadName = /filename="([^"]+)"/.exec(body.toString('latin1'))?.[1] ?? '';
    const at = body.indexOf('RIFF');
    const wav = body.subarray(at, at + 8 + body.readUInt32LE(at + 4));
    const inputSha256 = sha256(wav);
    const attempt = attempts.get(inputSha256) ?? 0;
    attempts.set(inputSha256, attempt + 1);
    const fault = options.fault?.(inputSha256, attempt);
    const answer = options.answer(inputSha256);
    const record: ChaosUpload = { run, inputSha256, uploadName, answer, ...(fault ? { fault } : {}) };
    uploads.push(record);
    if (fault === 'refused-503') return () => sendJson(res, 503, { error: 503, message: 'busy' });
    if (!TAKEN.has(fault)) return faulted(res, fault as ReadFault, () => {});
    if (answer === 'sync') {
      const result = redactedOf(wav);
      if (fault === 'cut') return () => sendCut(res, 200, 'audio/wav', result);
      return faulted(res, fault as 'taken-502', () => sendWav(res, result));
    }
    const jobId = `job-${jobs.size + 1}`;
    jobs.set(jobId, {
      jobId,
      run,
      inputSha256,
      uploadName,
      createdAt: new Date().toISOString(),
      result: redactedOf(wav),
      contentReads: 0,
      readyAfterReads: options.readsBeforeReady(inputSha256),
      reads: 0,
    });
    record.jobId = jobId;
    const created = Buffer.from(JSON.stringify({ job_id: jobId }));
    if (fault === 'cut') return () => sendCut(res, 202, 'application/json', created);
    return faulted(res, fault as 'taken-502', () => sendJson(res, 202, { job_id: jobId }));
  };

  /** A read of a job: its content, or its result's download. */
  const read = (res: ServerResponse, job: ChaosJob, answer: () => void, bytes: () => Buffer) => {
    const fault = options.readFault?.(job.inputSha256, job.reads++);
    if (fault === 'cut') return () => sendCut(res, 200, 'application/octet-stream', bytes());
    return fault ? faulted(res, fault, answer) : answer;
  };

  const answerFor = (
    url: string,
    method: string,
    res: ServerResponse,
    body: Buffer,
    run: number,
  ): (() => void) => {
    if (method === 'POST' && url === '/api/speech-to-speech-biometric-redaction')
      return upload(res, body, run);
    if (method === 'GET' && url === '/api/jobs') {
      const listed = [...jobs.values()].map((job) => ({
        job_id: job.jobId,
        token: 't',
        created_at: job.createdAt,
      }));
      return () => sendJson(res, 200, { jobs: listed });
    }
    const [, jobId = '', rest = ''] = /^\/api\/jobs\/([^/]+)\/(.*)$/.exec(url) ?? [];
    const job = jobs.get(decodeURIComponent(jobId));
    if (job && method === 'GET' && rest === 'content') {
      const item = (id: number, fileName: string) => ({
        id,
        job_id: job.jobId,
        file_name: fileName,
        audio_duration: 1,
        created_at: job.createdAt,
      });
      const stem = job.uploadName.replace(/\.wav$/, '');
      const content = () => {
        const ready = job.contentReads++ >= job.readyAfterReads;
        return { jobContent: [item(1, job.uploadName), ...(ready ? [item(2, `${stem}_redacted.wav`)] : [])] };
      };
      return read(
        res,
        job,
        () => sendJson(res, 200, content()),
        () => Buffer.from(JSON.stringify(content())),
      );
    }
    if (job && method === 'POST' && rest === 'files/download-url') {
      // The run is named in the link: a download carries no token.
      const signedUrl = `${server.baseUrl}/files/${job.jobId}?run=${run}`;
      return () => sendJson(res, 200, { signedUrl });
    }
    const file = jobs.get(/^\/files\/([^/?]+)\?/.exec(url)?.[1] ?? '');
    if (file && method === 'GET') {
      return read(
        res,
        file,
        () => sendWav(res, file.result, options.downloadHoldMs?.(file.inputSha256)),
        () => file.result,
      );
    }
    return () => sendJson(res, 404, { error: 404, message: 'not found' });
  };

  const server: ScriptedServer = await startScriptedServer((req, res, body) => {
    const url = req.url ?? '';
    const token = RUN_TOKEN.exec(String(req.headers.authorization ?? ''))?.[1];
    const run = Number(token ?? /[?&]run=(\d+)$/.exec(url)?.[1] ?? NaN);
    const state = runs[run];
    if (!state) {
      sendJson(res, 401, { error: 401, message: 'no run of this test sent it' });
      return;
    }
    runOfSocket.set(req.socket, run);
    const answer = answerFor(url, req.method ?? '', res, body, run);
    state.requests++;
    const due = state.trigger && state.requests === state.trigger.atRequest ? state.trigger : undefined;
    if (due?.moment === 'before-answer') signal(state, due.signal);
    if (due?.moment === 'after-answer') res.on('finish', () => signal(state, due.signal));
    answer();
  });

  return {
    baseUrl: server.baseUrl,
    uploads,
    jobs,
    beginRun(trigger) {
      const id = runs.length;
      const state: RunState = { kill: () => false, trigger, requests: 0, sent: undefined };
      runs.push(state);
      return {
        id,
        token: `vr_test_chaos_${id}`,
        attach: (kill) => {
          state.kill = kill;
        },
        signalled: () => state.sent,
        signal: (which) => signal(state, which),
        // Another run's new connection is untold for as long as its first request takes to come.
        quiet: () =>
          until(async () => server.openSockets().every((socket) => (runOfSocket.get(socket) ?? id) !== id)),
      };
    },
    close: () => server.close(),
  };
}
