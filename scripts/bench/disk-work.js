/**
 * The disk work that vredact's promises need for each file, with none of vredact's logic: the
 * floors of the bench (disk-floor.js, promises-floor.js) do it as vredact does, so that what they
 * cost is what any client keeping the same promises would pay on this disk.
 *   - the local check: stat, open, read the head, close;
 *   - the journal's `uploading` line, flushed (fdatasync) before the upload may start; lines written
 *     while a flush is under way share the next one, as vredact's journal does;
 *   - the check before sending (stat), and the file read whole and hashed (SHA-256), as uploaded;
 *   - the answer written under a temporary name, hashed, flushed (fsync), closed and renamed;
 *   - the journal's `done` line, written and not waited for (it goes to disk with the next flush).
 */
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, rename, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';

export class DiskWork {
  #flushing;
  #nextFlush;

  constructor(outDir, journal) {
    this.outDir = outDir;
    this.journal = journal;
  }

  static async open(outDir) {
    await mkdir(outDir, { recursive: true });
    return new DiskWork(outDir, await open(join(outDir, 'journal.jsonl'), 'a'));
  }

  /** A flush that starts after every line written so far: joins the next one when one is under way. */
  flush() {
    if (this.#nextFlush) return this.#nextFlush;
    if (!this.#flushing) {
      this.#flushing = this.journal.datasync().finally(() => {
        this.#flushing = undefined;
      });
      return this.#flushing;
    }
    this.#nextFlush = this.#flushing.then(() => {
      this.#nextFlush = undefined;
      return this.flush();
    });
    return this.#nextFlush;
  }

  async append(record, durable) {
    await this.journal.write(`${JSON.stringify(record)}\n`);
    if (durable) await this.flush();
  }

  /** The check, the `uploading` line and the bytes to send, with their hash. */
  async before(file, index) {
    await stat(file);
    const input = await open(file, 'r');
    await input.read(Buffer.alloc(4096), 0, 4096, 0);
    await input.close();
    await this.append({ event: 'uploading', input: file, uploadName: `${index}-${basename(file)}` }, true);
    await stat(file);
    const bytes = await readFile(file);
    return { bytes, inputSha256: createHash('sha256').update(bytes).digest('hex') };
  }

  /** The answer's chunks published under the output name, then the `done` line. */
  async after(file, index, inputSha256, chunks) {
    const temporary = join(this.outDir, `.${index}.partial`);
    const output = await open(temporary, 'wx');
    const hash = createHash('sha256');
    for await (const chunk of chunks) {
      hash.update(chunk);
      await output.write(chunk);
    }
    await output.sync();
    await output.close();
    await rename(temporary, join(this.outDir, `${index}.wav`));
    await this.append({ event: 'done', input: file, inputSha256, outputSha256: hash.digest('hex') }, false);
  }

  async close() {
    await this.journal.datasync();
    await this.journal.close();
  }
}

/** Runs `oneFile(file, index)` over `files`, `concurrency` at a time. */
export async function eachFile(files, concurrency, oneFile) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < files.length) {
        const index = next++;
        await oneFile(files[index], index);
      }
    }),
  );
}
