#!/usr/bin/env node
/**
 * The floor of the promises: one process that does, for each file, the disk work vredact's promises
 * need (disk-work.js) and the upload, with Node.js's own `http` client (cheaper per request than
 * undici on this machine) and nothing else: no command line, no settings, no plan, no verification
 * of the answer, no retries. Its CPU is what those promises cost any Node.js client on this machine
 * and disk, which vredact cannot go below; its wall time is no floor (it checks each file just before
 * its upload, where vredact checks ahead). The bench runs it as a child beside vredact.
 *
 *   node scripts/bench/promises-floor.js <redaction URL> <output folder> <concurrency> <file>...
 */
import { Agent, request } from 'node:http';
import { DiskWork, eachFile } from './disk-work.js';
import { MULTIPART_TYPE, multipartBody } from './multipart-body.js';

const [urlText, outDir, concurrencyText, ...files] = process.argv.slice(2);
const url = new URL(urlText);
const concurrency = Number(concurrencyText);
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
let failed = 0;

/** Posts `body`; resolves to the answer, a readable of its chunks. */
function post(body) {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      agent,
      headers: {
        'content-type': MULTIPART_TYPE,
        'content-length': body.length,
        authorization: 'Bearer vr_bench_token',
      },
    });
    req.once('response', resolve);
    req.once('error', reject);
    req.end(body);
  });
}

const disk = await DiskWork.open(outDir);
await eachFile(files, concurrency, async (file, index) => {
  const { bytes, inputSha256 } = await disk.before(file, index);
  const answer = await post(multipartBody(bytes));
  if (answer.statusCode !== 200) {
    failed++;
    answer.resume();
    return;
  }
  await disk.after(file, index, inputSha256, answer);
});
await disk.close();
agent.destroy();
if (failed > 0) {
  console.error(`promises-floor: ${failed} of ${files.length} uploads failed`);
  process.exit(1);
}
