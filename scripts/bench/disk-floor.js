#!/usr/bin/env node
/**
 * The other floor under vredact's CPU figure: the disk work that vredact's promises need for each
 * file, with no HTTP and none of vredact's logic. For each file, C at a time:
 *   - the local check: stat, open, read the head, close;
 *   - the journal's `uploading` line, flushed (fdatasync) before the upload may start; lines written
 *     while a flush is under way share the next one, as vredact's journal does;
 *   - the check before sending (stat), and the file read whole and hashed (SHA-256), as uploaded;
 *   - the answer written under a temporary name, hashed, flushed (fsync), closed and renamed;
 *   - the journal's `done` line, written and not waited for (it goes to disk with the next flush).
 * The bench runs it as a child beside vredact, so its CPU (user + sys) is measured the same way.
 *
 *   node scripts/bench/disk-floor.js <output folder> <concurrency> <file>...   (paths relative to cwd)
 */
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, rename, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';

const [outDir, concurrencyText, ...files] = process.argv.slice(2);
const concurrency = Number(concurrencyText);
await mkdir(outDir, { recursive: true });
const journal = await open(join(outDir, 'journal.jsonl'), 'a');
let next = 0;

let flushing;
let nextFlush;

/** A flush that starts after every line written so far: joins the next one when one is under way. */
function flush() {
  if (nextFlush) return nextFlush;
  if (!flushing) {
    flushing = journal.datasync().finally(() => {
      flushing = undefined;
    });
    return flushing;
  }
  nextFlush = flushing.then(() => {
    nextFlush = undefined;
    return flush();
  });
  return nextFlush;
}

async function append(record, durable) {
  await journal.write(`${JSON.stringify(record)}\n`);
  if (durable) await flush();
}

async function oneFile(file, index) {
  await stat(file);
  const input = await open(file, 'r');
  await input.read(Buffer.alloc(4096), 0, 4096, 0);
  await input.close();
  await append({ event: 'uploading', input: file, uploadName: `${index}-${basename(file)}` }, true);
  await stat(file);
  const bytes = await readFile(file);
  const inputSha256 = createHash('sha256').update(bytes).digest('hex');
  const temporary = join(outDir, `.${index}.partial`);
  const output = await open(temporary, 'wx');
  await output.write(bytes);
  const outputSha256 = createHash('sha256').update(bytes).digest('hex');
  await output.sync();
  await output.close();
  await rename(temporary, join(outDir, `${index}.wav`));
  await append({ event: 'done', input: file, inputSha256, outputSha256 }, false);
}

await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < files.length) {
      const index = next++;
      await oneFile(files[index], index);
    }
  }),
);
await journal.datasync();
await journal.close();
