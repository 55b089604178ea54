#!/usr/bin/env node
/**
 * The floor under vredact's figures: the same uploads made by a bare loop over undici's `request`
 * (the HTTP library vredact uses), with none of vredact's work (no checks, no verification, no
 * output files, no journal, no start-up of a command-line tool). undici comes from vredact's own
 * built loader (`dist/api/undici-agent.js`), so it is loaded and tuned as vredact loads it: from its
 * own files rather than its index (about 60 ms of CPU less) and, on Node.js 20, with llhttp kept on
 * V8's baseline compiler. The bench runs it as a child beside vredact, so its wall time and CPU are
 * measured the same way.
 *
 *   node scripts/bench/undici-floor.js <redaction URL> <concurrency> <file>...   (paths relative to cwd)
 */
import { readFile } from 'node:fs/promises';
import { Agent, request } from '../../dist/api/undici-agent.js';
import { MULTIPART_TYPE, multipartBody } from './multipart-body.js';

const [urlText, concurrencyText, ...files] = process.argv.slice(2);
const url = new URL(urlText);
const concurrency = Number(concurrencyText);
const agent = new Agent();
let next = 0;
let failed = 0;

async function worker() {
  while (next < files.length) {
    const file = files[next++];
    const body = multipartBody(await readFile(file));
    const response = await request(url, {
      method: 'POST',
      body,
      headers: {
        'content-type': MULTIPART_TYPE,
        authorization: 'Bearer vr_bench_token',
      },
      dispatcher: agent,
    });
    if (response.statusCode !== 200) failed++;
    for await (const chunk of response.body) void chunk;
  }
}

await Promise.all(Array.from({ length: concurrency }, worker));
await agent.close();
if (failed > 0) {
  console.error(`undici-floor: ${failed} of ${files.length} uploads failed`);
  process.exit(1);
}
