/**
 * A stand-in service for crash tests, on a scripted server: it answers each upload at once, either
 * with the redacted WAV (synchronous) or with a job whose result is ready after a few reads of its
 * content, and keeps every upload it took in (by the input's SHA-256 and upload name) and every job it
 * made. Every job is listed, and its content names the upload it came from, so a later run can always
 * find it. The answer for an input is derived from its bytes (`redactedOf`): a result saved under
 * another input's name is caught.
 *
 * A run's process can be signalled at its k-th request, before that request is answered (the service
 * has taken the upload in, made its job, and the client has not heard) or just after.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { until } from './e2e.js';
import { type ScriptedServer, sendJson, startScriptedServer } from './scripted-server.js';

export type AnswerKind = 'sync' | 'job';

export interface ChaosUpload {
  /** The run it came from, counted by `beginRun` from 0. */
  run: number;
  inputSha256: string;
  uploadName: string;
  answer: AnswerKind;
  jobId?: string;
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
}

export interface ChaosTrigger {
  /** Signals the run's process at its `atRequest`-th request (1 for the first). */
  atRequest: number;
  moment: 'before-answer' | 'after-answer';
  signal: NodeJS.Signals;
}

export interface ChaosService {
  baseUrl: string;
  uploads: ChaosUpload[];
  jobs: Map<string, ChaosJob>;
  /**
   * Starts counting the requests of a run; `kill` signals its process (a child process's own, which
   * never signals a process it has seen end, whose pid may be another's by then).
   */
  beginRun(kill: (signal: NodeJS.Signals) => boolean, trigger?: ChaosTrigger): void;
  /** Whether the current run's process was signalled (by its trigger or by `signal`). */
  signalled(): NodeJS.Signals | undefined;
  /** Signals the current run's process now, unless it is gone. */
  signal(signal: NodeJS.Signals): void;
  /** Waits until no connection is open: a killed client's last requests have all been taken in. */
  quiet(): Promise<void>;
  close(): Promise<void>;
}

export interface ChaosOptions {
  answer: (inputSha256: string) => AnswerKind;
  /** How many reads of a job's content find it still processing. */
  readsBeforeReady: (inputSha256: string) => number;
}

export const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** The service's answer for an input WAV: the same header, every byte of its audio inverted. */
export function redactedOf(wav: Buffer): Buffer {
  const start = wav.indexOf('data', 12, 'latin1') + 8;
  const result = Buffer.from(wav);
  for (let i = start; i < result.length; i++) result[i] = 255 - (result[i] as number);
  return result;
}

function sendWav(res: ServerResponse, wav: Buffer): void {
  res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length });
  res.end(wav);
}

export async function startChaosService(options: ChaosOptions): Promise<ChaosService> {
  const uploads: ChaosUpload[] = [];
  const jobs = new Map<string, ChaosJob>();
  let run = -1;
  let kill: (signal: NodeJS.Signals) => boolean = () => false;
  let trigger: ChaosTrigger | undefined;
  let requests = 0;
  let sent: NodeJS.Signals | undefined;
  const signal = (which: NodeJS.Signals) => {
    if (kill(which)) sent ??= which;
  };

  const upload = (res: ServerResponse, body: Buffer): (() => void) => {
    const uploadName = /filename="([^"]+)"/.exec(body.toString('latin1'))?.[1] ?? '';
    const at = body.indexOf('RIFF');
    const wav = body.subarray(at, at + 8 + body.readUInt32LE(at + 4));
    const inputSha256 = sha256(wav);
    const answer = options.answer(inputSha256);
    if (answer === 'sync') {
      uploads.push({ run, inputSha256, uploadName, answer });
      return () => sendWav(res, redactedOf(wav));
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
    });
    uploads.push({ run, inputSha256, uploadName, answer, jobId });
    return () => sendJson(res, 202, { job_id: jobId });
  };

  const server: ScriptedServer = await startScriptedServer((req, res, body) => {
    const url = req.url ?? '';
    const answer = ((): (() => void) => {
      if (req.method === 'POST' && url === '/api/speech-to-speech-biometric-redaction')
        return upload(res, body);
      if (req.method === 'GET' && url === '/api/jobs') {
        const listed = [...jobs.values()].map((job) => ({
          job_id: job.jobId,
          token: 't',
          created_at: job.createdAt,
        }));
        return () => sendJson(res, 200, { jobs: listed });
      }
      const [, jobId = '', rest = ''] = /^\/api\/jobs\/([^/]+)\/(.*)$/.exec(url) ?? [];
      const job = jobs.get(decodeURIComponent(jobId));
      if (job && req.method === 'GET' && rest === 'content') {
        const item = (id: number, fileName: string) => ({
          id,
          job_id: job.jobId,
          file_name: fileName,
          audio_duration: 1,
          created_at: job.createdAt,
        });
        const ready = job.contentReads++ >= job.readyAfterReads;
        const stem = job.uploadName.replace(/\.wav$/, '');
        const items = [item(1, job.uploadName), ...(ready ? [item(2, `${stem}_redacted.wav`)] : [])];
        return () => sendJson(res, 200, { jobContent: items });
      }
      if (job && req.method === 'POST' && rest === 'files/download-url') {
        return () => sendJson(res, 200, { signedUrl: `${server.baseUrl}/files/${job.jobId}` });
      }
      const result = jobs.get(/^\/files\/([^/]+)$/.exec(url)?.[1] ?? '')?.result;
      if (result && req.method === 'GET') return () => sendWav(res, result);
      return () => sendJson(res, 404, { error: 404, message: 'not found' });
    })();
    requests++;
    const due = trigger && requests === trigger.atRequest ? trigger : undefined;
    if (due?.moment === 'before-answer') signal(due.signal);
    if (due?.moment === 'after-answer') res.on('finish', () => signal(due.signal));
    answer();
  });

  return {
    baseUrl: server.baseUrl,
    uploads,
    jobs,
    beginRun(nextKill, nextTrigger) {
      run++;
      kill = nextKill;
      trigger = nextTrigger;
      requests = 0;
      sent = undefined;
    },
    signalled: () => sent,
    signal,
    quiet: () => until(async () => server.openConnections() === 0),
    close: () => server.close(),
  };
}
