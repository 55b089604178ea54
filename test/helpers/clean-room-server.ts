/**
 * A clean-room Voice Redaction Service, written from the service interface
 * document alone, before reading vredact. Where the interface says "not
 * shown", it makes its own choice, on purpose not the obvious one:
 *
 * | left open by the interface      | default here                                  | option                |
 * |---------------------------------|-----------------------------------------------|-----------------------|
 * | sync answer                     | 201, `audio/x-wav`, silence of input duration | syncStatus, wavType   |
 * |                                 | in the input's PCM layout, a LIST chunk first |                       |
 * | sync/async threshold            | longer than 30 s is asynchronous              | syncLimitSeconds      |
 * | async answer                    | 202 `{status, job_id, message, links}`; or    | asyncStatus, asyncBody|
 * |                                 | no id; or `Location` only; or `{data: {id}}`  |                       |
 * | named states                    | QUEUED, RUNNING, SUCCEEDED                    | states                |
 * | transitions                     | one phase per look at the job (no clock)      | looksPerPhase         |
 * | content while not done          | 200 with an empty jobContent                  |                       |
 * | job_id format                   | UUID                                          | jobIdStyle            |
 * | file_name                       | `<upload stem>_redacted.wav`; or a key with   | fileNameStyle         |
 * |                                 | `/`, or a UUID unrelated to the upload        |                       |
 * | which files a job lists         | the result only; or the upload, then result   | listSourceFile        |
 * | audio_duration unit             | milliseconds                                  | durationUnit          |
 * | Job `token`                     | a token fingerprint, never the secret         |                       |
 * | extra fields, field order       | extra fields everywhere, order shuffled       |                       |
 * | sync jobs in the jobs area      | recorded there too                            | recordSyncJobs        |
 * | POST /api/jobs                  | 201                                           |                       |
 * | download-url                    | 201; link on another port, refuses bearer     | download              |
 * | JSON content type               | `application/json; charset=utf-8`             |                       |
 * | framing                         | chunked, no Content-Length                    | chunked               |
 * | keep-alive                      | `Connection: close` on every other answer     | closeEveryOther       |
 * | rate limits                     | none; or the first call of each kind is 429,  | throttle              |
 * |                                 | Retry-After in seconds or as an HTTP date     |                       |
 * | token errors                    | 401 / 403 on every endpoint, not only listing |                       |
 * | timestamps                      | `+00:00` offsets with milliseconds; or a      | timestamps            |
 * |                                 | zone's local time without a zone              |                       |
 * | error codes                     | Error shape, five-digit codes, own messages   |                       |
 * | audio over 3600 s               | 422                                           |                       |
 * | a gateway in front              | none; or 504 to asynchronous uploads, after   | gateway504            |
 * |                                 | the service made the job or before            |                       |
 */
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { measureAudio, silentWav } from './clean-room-audio.js';
import { closeServer, drain, listen, originOf, readJson, readMultipart } from './clean-room-http.js';
import {
  asyncAnswer,
  type CleanRoomOptions,
  type CleanRoomSettings,
  itemJson,
  type Job,
  jobJson,
  newJobId,
  phaseOf,
  resultName,
  stateOf,
  timestampNow,
  type ReceivedRequest,
} from './clean-room-shapes.js';

export type { CleanRoomOptions, ReceivedRequest } from './clean-room-shapes.js';

export interface CleanRoomService {
  baseUrl: string;
  token: string;
  received: ReceivedRequest[];
  /** Redaction uploads that were processed (not throttled). */
  uploads(): ReceivedRequest[];
  /** The ids of the jobs area, newest first. */
  jobIds(): string[];
  /** The bytes of a job's result (listed last, after the source when that is listed). */
  resultOf(jobId: string): Buffer | undefined;
  /** The file name that the upload a job was made of carried. */
  uploadNameOf(jobId: string): string | undefined;
  /** While false, the jobs area lists no job (one whose listing lags behind its uploads). */
  listJobs(on: boolean): void;
  /** The next `count` listings of the jobs area answer 500. */
  failListings(count: number): void;
  close(): Promise<void>;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

export async function startCleanRoomService(options: CleanRoomOptions = {}): Promise<CleanRoomService> {
  const o = {
    token: 'clean-room-token',
    syncLimitSeconds: 30,
    syncStatus: 201,
    wavType: 'audio/x-wav',
    asyncStatus: 202,
    asyncBody: 'job',
    states: ['QUEUED', 'RUNNING', 'SUCCEEDED'],
    looksPerPhase: 1,
    jobIdStyle: 'uuid',
    fileNameStyle: 'suffix',
    durationUnit: 'milliseconds',
    recordSyncJobs: true,
    listSourceFile: false,
    download: 'signed-port',
    chunked: true,
    closeEveryOther: true,
    throttle: 'none',
    gateway504: 'none',
    timestamps: 'offset',
    ...options,
  } satisfies CleanRoomSettings;
  const jobs: Job[] = [];
  const received: ReceivedRequest[] = [];
  const processed: ReceivedRequest[] = [];
  const signatures = new Map<string, Buffer>();
  const uploadNames = new Map<string, string>();
  const throttled = new Set<string>();
  let answers = 0;
  let nextFileId = 7001;
  let listing = true;
  let failingListings = 0;

  const send = (
    res: http.ServerResponse,
    status: number,
    body: Buffer | object,
    type = JSON_TYPE,
    extraHeaders: http.OutgoingHttpHeaders = {},
  ): void => {
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
    const headers: http.OutgoingHttpHeaders = {
      ...extraHeaders,
      'content-type': type,
      'x-request-id': randomUUID(),
    };
    if (!o.chunked) headers['content-length'] = bytes.length;
    if (o.closeEveryOther && answers++ % 2 === 1) headers.connection = 'close';
    res.writeHead(status, headers);
    const half = Math.floor(bytes.length / 2);
    res.write(bytes.subarray(0, half));
    res.end(bytes.subarray(half));
  };
  const fail = (res: http.ServerResponse, status: number, code: number, message: string): void =>
    send(res, status, { message, error: code, request_id: randomBytes(6).toString('hex') });

  /** What nginx answers when the service did not answer within its `proxy_read_timeout`. */
  const gatewayTimeout = (res: http.ServerResponse): void =>
    send(
      res,
      504,
      Buffer.from(
        '<html>\r\n<head><title>504 Gateway Time-out</title></head>\r\n<body>\r\n<center><h1>504 Gateway Time-out</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n',
      ),
      'text/html',
    );

  const downloadServer = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const wav = signatures.get(url.searchParams.get('X-Signature') ?? '');
    // A presigned link carries its own authority, like S3's: a second one is refused.
    if (req.headers.authorization) return fail(res, 400, 40010, 'Only one auth mechanism allowed');
    if (req.method !== 'GET' || !wav) return fail(res, 403, 40310, 'Signature does not match');
    send(res, 200, wav, 'audio/wave');
  });

  const redact = async (req: http.IncomingMessage, res: http.ServerResponse, record: ReceivedRequest) => {
    const upload = await readMultipart(req, record);
    if (!upload) return fail(res, 400, 40001, 'source_audio is required as a multipart file field');
    if (upload.length > MAX_UPLOAD_BYTES) return fail(res, 413, 41300, 'Uploaded file exceeds 10 MB');
    const audio = measureAudio(upload);
    if (!audio || audio.durationSeconds <= 0)
      return fail(res, 400, 40002, 'source_audio is not WAV or MP3 audio');
    if (audio.durationSeconds > 3600) return fail(res, 422, 42201, 'Audio longer than 3600 seconds');
    const asynchronous = audio.durationSeconds > o.syncLimitSeconds;
    if (asynchronous && o.gateway504 === 'before-taking') return gatewayTimeout(res);
    processed.push(record);
    const wav = silentWav(audio.durationSeconds, audio.format);
    const createdAt = timestampNow(o);
    const file = {
      id: nextFileId++,
      fileName: resultName(o, record.fileName ?? ''),
      durationSeconds: audio.durationSeconds,
      wav,
      createdAt,
    };
    const source = { ...file, id: nextFileId++, fileName: record.fileName ?? 'source', wav: upload };
    const job: Job = {
      jobId: newJobId(o),
      createdAt,
      looks: 0,
      files: o.listSourceFile ? [source, file] : [file],
    };
    if (record.fileName) uploadNames.set(job.jobId, record.fileName);
    if (audio.durationSeconds <= o.syncLimitSeconds) {
      if (o.recordSyncJobs) jobs.unshift({ ...job, looks: 2 * o.looksPerPhase });
      return send(res, o.syncStatus, wav, o.wavType);
    }
    jobs.unshift(job);
    if (o.gateway504 === 'after-taking') return gatewayTimeout(res);
    const answer = asyncAnswer(o, job);
    send(res, o.asyncStatus, answer.body, JSON_TYPE, answer.headers);
  };

  const route = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const record: ReceivedRequest = {
      method: req.method ?? '',
      path,
      authorization: req.headers.authorization,
      fields: {},
    };
    received.push(record);
    const kind = `${req.method} ${path.replace(/\/api\/jobs\/[^/]+\//, '/api/jobs/{id}/')}`;
    if (o.throttle !== 'none' && !throttled.has(kind)) {
      throttled.add(kind);
      await drain(req);
      res.setHeader(
        'retry-after',
        o.throttle === 'seconds' ? '1' : new Date(Date.now() + 1500).toUTCString(),
      );
      return fail(res, 429, 42901, 'Too many requests, slow down');
    }
    if (!req.headers.authorization)
      return (await drain(req), fail(res, 401, 40101, 'Authorization header missing'));
    if (req.headers.authorization !== `Bearer ${o.token}`)
      return (await drain(req), fail(res, 403, 40301, 'Token invalid'));
    if (req.method === 'POST' && path === '/api/speech-to-speech-biometric-redaction')
      return redact(req, res, record);
    const body = await readJson(req);
    if (req.method === 'GET' && path === '/api/jobs') {
      if (failingListings > 0 && failingListings--) return fail(res, 500, 50000, 'Internal error');
      for (const job of jobs) job.looks++;
      const listed = listing ? jobs : [];
      return send(res, 200, {
        total: listed.length,
        jobs: listed.map((job) => jobJson(o, job)),
        next_page: null,
      });
    }
    if (req.method === 'POST' && path === '/api/jobs') {
      const job: Job = { jobId: newJobId(o), createdAt: timestampNow(o), looks: 0, files: [] };
      jobs.unshift(job);
      return send(res, 201, { status: o.states[0], job_id: job.jobId });
    }
    const match = /^\/api\/jobs\/([^/]+)\/(content|files\/download-url)$/.exec(path);
    const job = match && jobs.find((j) => j.jobId === decodeURIComponent(match[1]!));
    if (!match || req.method !== (match[2] === 'content' ? 'GET' : 'POST'))
      return fail(res, 404, 40400, 'No such route');
    if (!job) return fail(res, 404, 40401, 'Job not found for this token');
    if (match[2] === 'content') {
      job.looks++;
      const files = phaseOf(o, job) === 2 ? job.files : [];
      return send(res, 200, {
        job_status: stateOf(o, job),
        jobContent: files.map((f) => itemJson(o, job, f)),
      });
    }
    const fileName = typeof body?.fileName === 'string' ? body.fileName : undefined;
    if (!fileName) return fail(res, 400, 40003, 'fileName is required');
    const file = phaseOf(o, job) === 2 ? job.files.find((f) => f.fileName === fileName) : undefined;
    if (!file) return fail(res, 404, 40402, 'File not found in this job');
    const signature = randomBytes(16).toString('hex');
    signatures.set(signature, file.wav);
    const origin = o.download === 'signed-port' ? originOf(downloadServer) : originOf(server);
    const key = `${job.jobId}/${encodeURIComponent(fileName)}`;
    const expires = Math.floor(Date.now() / 1000) + 900;
    send(res, 201, {
      expiresAt: expires,
      signedUrl: `${origin}/objects/${key}?X-Expires=${expires}&X-Signature=${signature}`,
    });
  };

  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const answer = path.startsWith('/objects/') ? downloadServer.emit('request', req, res) : route(req, res);
    if (answer instanceof Promise) answer.catch(() => res.destroy());
  });
  await Promise.all([listen(server), listen(downloadServer)]);
  return {
    baseUrl: originOf(server),
    token: o.token,
    received,
    uploads: () => processed,
    jobIds: () => jobs.map((job) => job.jobId),
    resultOf: (jobId) => jobs.find((job) => job.jobId === jobId)?.files.at(-1)?.wav,
    uploadNameOf: (jobId) => uploadNames.get(jobId),
    listJobs: (on) => {
      listing = on;
    },
    failListings: (count) => {
      failingListings = count;
    },
    close: async () => {
      await Promise.all([closeServer(server), closeServer(downloadServer)]);
    },
  };
}
