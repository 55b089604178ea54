/**
 * The clean-room service's choices of shape (clean-room-server.ts): its options, and what its jobs,
 * content items, result names and asynchronous answers look like, each a plain function of the options.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type http from 'node:http';

export interface CleanRoomOptions {
  token?: string;
  syncLimitSeconds?: number;
  syncStatus?: number;
  wavType?: string;
  asyncStatus?: number;
  /**
   * 'job' answers the new job's id; 'bare' only says it was accepted, so the job is found in the jobs
   * area; 'location' names it only in a `Location` header (`/api/jobs/{id}`, RFC 9110's status
   * monitor); 'envelope' names it inside `{"data": {"id": …}}`.
   */
  asyncBody?: 'job' | 'bare' | 'location' | 'envelope';
  states?: [accepted: string, processing: string, available: string];
  looksPerPhase?: number;
  jobIdStyle?: 'uuid' | 'hex' | 'dashed';
  fileNameStyle?: 'suffix' | 'key' | 'opaque';
  durationUnit?: 'seconds' | 'milliseconds';
  recordSyncJobs?: boolean;
  /** The content also lists the uploaded file under the name it was sent with. */
  listSourceFile?: boolean;
  download?: 'signed-port' | 'same-port';
  chunked?: boolean;
  closeEveryOther?: boolean;
  throttle?: 'none' | 'seconds' | 'date';
  /**
   * A gateway in front of the service answers each asynchronous upload 504 Gateway Time-out (nginx's
   * `proxy_read_timeout` before a service that holds the request): 'after-taking', once the service
   * has made its job; 'before-taking', without passing the upload on (no job). 'none' by default.
   */
  gateway504?: 'none' | 'after-taking' | 'before-taking';
  /**
   * 'offset' writes each time as `2026-11-21T10:14:03.512+00:00`; a number of minutes east of UTC
   * (-300 for UTC-5), as the local time of that zone without one: `2026-11-21T05:14:03`.
   */
  timestamps?: 'offset' | number;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  fields: Record<string, string>;
  fileName?: string;
  fileBytes?: number;
}

export interface StoredFile {
  id: number;
  fileName: string;
  durationSeconds: number;
  wav: Buffer;
  createdAt: string;
}

export interface Job {
  jobId: string;
  createdAt: string;
  looks: number;
  files: StoredFile[];
}

export type CleanRoomSettings = Required<CleanRoomOptions>;

/** The time now, as the service writes its times (the `timestamps` option). */
export function timestampNow(o: CleanRoomSettings): string {
  const now = new Date();
  if (o.timestamps === 'offset') return now.toISOString().replace('Z', '+00:00');
  return new Date(now.getTime() + o.timestamps * 60_000).toISOString().slice(0, 19);
}

export function newJobId(o: CleanRoomSettings): string {
  if (o.jobIdStyle === 'hex') return randomBytes(20).toString('hex');
  if (o.jobIdStyle === 'dashed')
    return `job-${new Date().toISOString().slice(0, 10)}-${randomBytes(3).toString('hex')}`;
  return randomUUID();
}

export const phaseOf = (o: CleanRoomSettings, job: Job): number =>
  Math.min(2, Math.floor(job.looks / o.looksPerPhase));

export const stateOf = (o: CleanRoomSettings, job: Job): string => o.states[phaseOf(o, job)]!;

export const jobJson = (o: CleanRoomSettings, job: Job) => ({
  created_at: job.createdAt,
  status: stateOf(o, job),
  token: `tok_${randomBytes(4).toString('hex')}`,
  job_id: job.jobId,
  object: 'job',
});

export const itemJson = (o: CleanRoomSettings, job: Job, file: StoredFile) => ({
  created_at: file.createdAt,
  file_name: file.fileName,
  audio_duration:
    o.durationUnit === 'milliseconds' ? Math.round(file.durationSeconds * 1000) : file.durationSeconds,
  id: file.id,
  job_id: job.jobId,
  size_bytes: file.wav.length,
  mime_type: o.wavType,
});

export function resultName(o: CleanRoomSettings, sourceName: string): string {
  const stem = sourceName.replace(/^.*[\\/]/, '').replace(/\.[^.]*$/, '') || 'audio';
  if (o.fileNameStyle === 'key') return `results/${randomBytes(4).toString('hex')}/${stem}_redacted.wav`;
  if (o.fileNameStyle === 'opaque') return `${randomUUID()}.wav`;
  return `${stem}_redacted.wav`;
}

/** The answer to an upload that became an asynchronous job, in the shape `asyncBody` names. */
export function asyncAnswer(
  o: CleanRoomSettings,
  job: Job,
): { body: object; headers: http.OutgoingHttpHeaders } {
  if (o.asyncBody === 'bare')
    return { body: { message: 'Accepted for processing', accepted: true }, headers: {} };
  if (o.asyncBody === 'location')
    return {
      body: { message: 'Accepted for processing', status: o.states[0] },
      headers: { location: `/api/jobs/${encodeURIComponent(job.jobId)}` },
    };
  if (o.asyncBody === 'envelope')
    return {
      body: {
        status: 'accepted',
        data: { type: 'redaction-job', id: job.jobId, attributes: { state: o.states[0] } },
      },
      headers: {},
    };
  return {
    body: {
      status: o.states[0],
      job_id: job.jobId,
      message: 'Accepted for processing',
      links: { content: `/api/jobs/${job.jobId}/content` },
    },
    headers: {},
  };
}
