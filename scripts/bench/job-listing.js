/**
 * The stand-in's jobs, for the look-up part of `bench:batch`: `GET /api/jobs` with `jobs` jobs, the
 * first `recent` of them made now and the others a year before, written as a stream (so that a
 * listing of 1,000,000, about 90 MB, costs the stand-in nothing); each job's content lists one file
 * no upload carried.
 */
const OLD = '2025-11-01T00:00:00.000Z';
/** Jobs per write. */
const PER_WRITE = 2000;

const jobId = (i) => `job-${String(i).padStart(7, '0')}`;

/** Until `res` takes more, or is gone. */
function writable(res) {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Writes `{"jobs":[…]}` to `res`, holding back while the client reads slower than it is written. */
export async function writeJobListing(res, { jobs, recent }) {
  const now = new Date().toISOString();
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"jobs":[');
  for (let from = 0; from < jobs; from += PER_WRITE) {
    const parts = [];
    for (let i = from; i < Math.min(jobs, from + PER_WRITE); i++) {
      parts.push(
        `{"job_id":"${jobId(i)}","token":"vr_bench_token","created_at":"${i < recent ? now : OLD}"}`,
      );
    }
    if (!res.write(`${from === 0 ? '' : ','}${parts.join(',')}`)) {
      await writable(res);
      if (res.destroyed) return;
    }
  }
  res.end(']}');
}

/** `{"jobContent":[…]}` of job `id`, or undefined when `path` is not a job's content. */
export function jobContentOf(path) {
  const id = /^\/api\/jobs\/([^/]+)\/content$/.exec(path)?.[1];
  if (id === undefined) return undefined;
  const item = {
    id: '1',
    job_id: id,
    file_name: 'other.wav',
    audio_duration: 1,
    created_at: new Date().toISOString(),
  };
  return { jobContent: [item] };
}
