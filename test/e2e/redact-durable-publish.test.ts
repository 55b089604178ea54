/**
 * Outputs published with their folder flushed (src/fs/folder-flush.ts), end to end: at -c 32, many
 * outputs land in one folder at once and share its flushes; each is whole, journaled done with the
 * hash of its bytes, no temporary file is left, and a re-run sends nothing. Build first.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeWav } from '../helpers/mp3.js';
import { isWav, jsonLines, listFiles, setup } from '../helpers/e2e.js';

const FILES = 48;

describe('outputs published many at a time into one folder', () => {
  it('are whole and journaled done with their hashes at -c 32; a re-run sends nothing', async () => {
    const t = await setup();
    try {
      await mkdir(join(t.dir, 'in', 'day'), { recursive: true });
      for (let i = 0; i < FILES; i++) {
        await writeFile(join(t.dir, 'in', 'day', `call-${i}.wav`), makeWav(0.2 + i / 100));
      }
      const first = await t.redact(['in', '-c', '32', '--json']);
      expect(first.exitCode, String(first.stderr)).toBe(0);
      const outcomes = jsonLines(first.stdout).filter((line) => !('summary' in line));
      expect(outcomes.filter((line) => line.status === 'done')).toHaveLength(FILES);

      const files = await listFiles(join(t.dir, 'redacted'));
      const outputs = files.filter((name) => !name.startsWith('.vredact/'));
      expect(outputs).toEqual(Array.from({ length: FILES }, (_, i) => `day/call-${i}.wav`).sort());
      expect(files.filter((name) => name.endsWith('.vredact-partial'))).toEqual([]);

      const journal = (await readFile(join(t.dir, 'redacted', '.vredact', 'journal.jsonl'), 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(journal.filter((line) => line.event === 'uploading')).toHaveLength(FILES);
      const done = journal.filter((line) => line.event === 'done');
      expect(done).toHaveLength(FILES);
      for (const line of done) {
        const path = join(t.dir, 'redacted', String(line.output));
        const bytes = await readFile(path);
        expect(await isWav(path)).toBe(true);
        expect(line).toMatchObject({
          via: 'sync',
          bytes: bytes.length,
          outputSha256: createHash('sha256').update(bytes).digest('hex'),
        });
      }

      const uploads = (await t.sandbox.stats()).uploads;
      const again = await t.redact(['in', '-c', '32', '--json']);
      expect(again.exitCode).toBe(0);
      expect(jsonLines(again.stdout).filter((line) => line.status === 'skipped')).toHaveLength(FILES);
      expect((await t.sandbox.stats()).uploads).toBe(uploads);
    } finally {
      await t.cleanup();
    }
  });
});
