import { chmod, mkdir, readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  markTemporaryNamesAsShard,
  NAME_MAX_BYTES,
  temporaryNameFor,
  temporaryNameMaxBytes,
  writeFileAtomically,
  writeUnpublished,
} from '../../src/fs/atomic-write.js';
import { LocalFsError } from '../../src/fs/errors.js';
import { tempDirPerTest } from '../helpers/cli.js';
import { OUR_SPACE_TAG } from '../helpers/process-space.js';
import { expectFileBytes } from '../helpers/same-bytes.js';

const dir = tempDirPerTest('vredact-atomic-');

describe('writeFileAtomically', () => {
  it('publishes the whole file under its name, and nothing else', async () => {
    const dest = join(dir.path, 'sub', 'a.wav');
    expect(await writeFileAtomically(dest, Readable.from([Buffer.from('abc'), Buffer.from('def')]))).toBe(6);
    expect(await readFile(dest, 'utf8')).toBe('abcdef');
    expect(await readdir(join(dir.path, 'sub'))).toEqual(['a.wav']);
  });

  it('removes the temporary file when the source fails, and leaves the name untouched', async () => {
    const dest = join(dir.path, 'a.wav');
    async function* broken() {
      yield Buffer.from('half');
      throw new Error('the check failed');
    }
    await expect(writeFileAtomically(dest, broken())).rejects.toThrow('the check failed');
    expect(await readdir(dir.path)).toEqual([]);
  });

  it('gives a temporary name of fixed, short length, whatever the output is called', () => {
    const long = join(dir.path, `${'é'.repeat(125)}.wav`); // 254 bytes
    const temp = basename(temporaryNameFor(long));
    expect(Buffer.byteLength(temp)).toBeLessThanOrEqual(temporaryNameMaxBytes(undefined));
    expect(Buffer.byteLength(temp)).toBeLessThan(64);
    expect(Buffer.byteLength(basename(long))).toBeLessThanOrEqual(NAME_MAX_BYTES);
  });

  it("marks a shard's temporary names with the shard, still short", () => {
    markTemporaryNamesAsShard({ index: 99_999, count: 99_999 });
    try {
      const temp = basename(temporaryNameFor(join(dir.path, 'a.wav')));
      expect(temp).toMatch(/^\.v-99999-of-99999\.\d+-[0-9a-f]{8}-[0-9a-f]{16}\.vredact-partial$/);
      expect(Buffer.byteLength(temp)).toBeLessThanOrEqual(
        temporaryNameMaxBytes({ index: 99_999, count: 99_999 }),
      );
      expect(Buffer.byteLength(temp)).toBeLessThan(72);
    } finally {
      markTemporaryNamesAsShard(undefined);
    }
    expect(basename(temporaryNameFor(join(dir.path, 'a.wav')))).toMatch(/^\.v\.\d+-/);
  });

  it('names its pid and its process space, whose tag a sweep compares with its own', () => {
    expect(basename(temporaryNameFor(join(dir.path, 'a.wav')))).toMatch(
      new RegExp(`^\\.v\\.${process.pid}-${OUR_SPACE_TAG}-[0-9a-f]{16}\\.vredact-partial$`),
    );
  });

  it('saves an output whose own name is near the limit', async () => {
    const dest = join(dir.path, `${'x'.repeat(NAME_MAX_BYTES - 4)}.wav`);
    await writeFileAtomically(dest, Readable.from([Buffer.from('ok')]));
    expect(await readFile(dest, 'utf8')).toBe('ok');
  });

  it.skipIf(process.getuid?.() === 0)(
    'names the path of a local failure as a file-system error',
    async () => {
      const locked = join(dir.path, 'locked');
      await mkdir(locked);
      await chmod(locked, 0o500);
      const failure = writeFileAtomically(join(locked, 'a.wav'), Readable.from([Buffer.from('x')]));
      await expect(failure).rejects.toBeInstanceOf(LocalFsError);
      await expect(failure).rejects.toThrow(/locked\/a\.wav: permission denied/);
    },
  );
});

describe('writeUnpublished', () => {
  it('leaves the name untouched until published, then shows the whole file under it', async () => {
    const dest = join(dir.path, 'a.wav');
    const written = await writeUnpublished(dest, Readable.from([Buffer.from('abc'), Buffer.from('de')]));
    expect(written.bytes).toBe(5);
    // A small result is held in memory: nothing on disk until it is published.
    expect(await readdir(dir.path)).toEqual([]);
    await written.publish();
    expect(await readdir(dir.path)).toEqual(['a.wav']);
    expect(await readFile(dest, 'utf8')).toBe('abcde');
  });

  it('leaves nothing behind when discarded, and an existing output as it was', async () => {
    const dest = join(dir.path, 'a.wav');
    await writeFileAtomically(dest, Readable.from([Buffer.from('old')]));
    const written = await writeUnpublished(dest, Readable.from([Buffer.from('new')]));
    await written.discard();
    await written.publish(); // settled: does nothing
    expect(await readdir(dir.path)).toEqual(['a.wav']);
    expect(await readFile(dest, 'utf8')).toBe('old');
  });

  it('writes a large source to a temporary file as it comes, published or discarded whole', async () => {
    const big = Buffer.alloc(300 * 1024, 5);
    const chunks = [big.subarray(0, 100_000), big.subarray(100_000, 250_000), big.subarray(250_000)];
    const dest = join(dir.path, 'big.wav');
    const written = await writeUnpublished(dest, Readable.from(chunks));
    const before = await readdir(dir.path);
    expect(before).toHaveLength(1);
    expect(before[0]).toMatch(/\.vredact-partial$/);
    await written.publish();
    expect(await readdir(dir.path)).toEqual(['big.wav']);
    await expectFileBytes(dest, big);

    const other = await writeUnpublished(join(dir.path, 'other.wav'), Readable.from(chunks));
    await other.discard();
    expect(await readdir(dir.path)).toEqual(['big.wav']);
  });

  it('a source failing past the first writes leaves no temporary file', async () => {
    async function* broken() {
      yield Buffer.alloc(300 * 1024);
      throw new Error('the check failed');
    }
    await expect(writeUnpublished(join(dir.path, 'x.wav'), broken())).rejects.toThrow('the check failed');
    expect(await readdir(dir.path)).toEqual([]);
  });
});
