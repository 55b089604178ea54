/**
 * A minimal stand-in of the service for `bench:batch`, costing the machine almost nothing: it answers
 * a redaction after a fixed latency with the uploaded WAV sent back, its last byte changed (same
 * duration, so a client that verifies its results accepts it; not the upload itself, which is no
 * redaction), and `GET /api/jobs` with no jobs. For `download`, a job's
 * content lists `contentItems` tiny WAVs (streamed, as a real listing of that size comes), each
 * served through a relative signed URL. For the look-up part: `failUploads` answers each upload 502
 * (its fate unknown, so the journal keeps it `uploading`), and `listing` sets the jobs listed
 * (job-listing.js). Every other answer is written whole in one write on a socket without Nagle's
 * delay, so the latency measured is the one set.
 */
import { createServer } from 'node:http';
import { jobContentOf, writeJobListing } from './job-listing.js';
import { toneWav } from './wav-files.js';

const REDACT_PATH = '/api/speech-to-speech-biometric-redaction';
/** The largest upload read; the bench's files are far smaller. */
const MAX_BODY = 16 * 1024 * 1024;
const RIFF = Buffer.from('RIFF');

/**
 * The WAV inside a multipart body, from `RIFF` to the end its header declares, its last byte changed
 * in place (the body is the server's own copy).
 */
function answerWav(body) {
  const at = body.indexOf(RIFF);
  if (at === -1 || at + 8 > body.length) return undefined;
  const end = at + 8 + body.readUInt32LE(at + 4);
  if (end > body.length) return undefined;
  body[end - 1] ^= 1;
  return body.subarray(at, end);
}

function answer(res, status, type, body) {
  // Node sends the head with the first body chunk when end() carries the whole body.
  res.writeHead(status, { 'content-type': type, 'content-length': body.length });
  res.end(body);
}

function answerJson(res, status, value) {
  answer(res, status, 'application/json', Buffer.from(JSON.stringify(value)));
}

const CONTENT_PATH = /^\/api\/jobs\/[^/]+\/content$/;
const DOWNLOAD_URL_PATH = /^\/api\/jobs\/[^/]+\/files\/download-url$/;
const FILE = toneWav(0.05);

function writable(res) {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}

/** `{"jobContent": [...]}` of `count` items, written in batches as the socket takes them. */
async function streamContent(res, count) {
  res.writeHead(200, { 'content-type': 'application/json' });
  const created = new Date(0).toISOString();
  let batch = '{"jobContent":[';
  for (let i = 0; i < count && !res.destroyed; i++) {
    const item = { id: i + 1, job_id: 'job-bench', file_name: `f${i}.wav`, audio_duration: 0.05 };
    batch += `${i === 0 ? '' : ','}${JSON.stringify({ ...item, created_at: created })}`;
    if (batch.length >= 64 * 1024) {
      if (!res.write(batch)) await writable(res);
      batch = '';
    }
  }
  res.end(`${batch}]}`);
}

/** Starts the stand-in on 127.0.0.1, a free port. `latencyMs` (settable later) delays each redaction answer. */
export async function startStandIn({ latencyMs }) {
  const stats = { uploads: 0, listings: 0, contentReads: 0, fileGets: 0 };
  const timers = new Set();
  const standIn = { latencyMs, contentItems: 0, failUploads: false, listing: { jobs: 0, recent: 0 } };
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/api/jobs') {
      stats.listings++;
      if (standIn.listing.jobs > 0) void writeJobListing(res, standIn.listing);
      else answerJson(res, 200, { jobs: [] });
      return;
    }
    // The download part's job lists its tiny files; the look-up part's each list one result.
    if (req.method === 'GET' && standIn.contentItems > 0 && CONTENT_PATH.test(path)) {
      void streamContent(res, standIn.contentItems);
      return;
    }
    const content = req.method === 'GET' ? jobContentOf(path) : undefined;
    if (content) {
      stats.contentReads++;
      answerJson(res, 200, content);
      return;
    }
    if (req.method === 'POST' && DOWNLOAD_URL_PATH.test(path)) {
      const chunks = [];
      req.on('data', (chunk) => chunks.push(chunk));
      req.on('end', () => {
        const { fileName } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        answerJson(res, 200, { signedUrl: `/files/${encodeURIComponent(fileName)}` });
      });
      return;
    }
    if (req.method === 'GET' && path.startsWith('/files/')) {
      stats.fileGets++;
      answer(res, 200, 'audio/wav', FILE);
      return;
    }
    if (req.method !== 'POST' || path !== REDACT_PATH) {
      req.resume();
      answerJson(res, 404, { error: 404, message: 'not found' });
      return;
    }
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      stats.uploads++;
      if (standIn.failUploads) {
        answerJson(res, 502, { error: 502, message: 'bad gateway' });
        return;
      }
      const wav = answerWav(Buffer.concat(chunks, size));
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (wav) answer(res, 200, 'audio/wav', wav);
        else answerJson(res, 422, { error: 422, message: 'no WAV in the upload' });
      }, standIn.latencyMs);
      timers.add(timer);
    });
  });
  server.on('connection', (socket) => socket.setNoDelay(true));
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return Object.assign(standIn, {
    url: `http://127.0.0.1:${port}`,
    redactUrl: `http://127.0.0.1:${port}${REDACT_PATH}`,
    stats,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve()));
    },
  });
}
