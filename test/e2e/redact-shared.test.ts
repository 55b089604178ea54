/**
 * Exact recovery and shared output folders, through the built binary against the sandbox: same-named
 * inputs killed mid-upload, names near the file-system limit, three shards at once on one folder,
 * and a compacted journal.
 */
import { appendFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WavReader } from '../../src/audio/riff.js';
import { jsonLines, listFiles, setup, until } from '../helpers/e2e.js';
import { makeWav } from '../helpers/mp3.js';

async function durationOf(path: string): Promise<number> {
  const reader = new WavReader({ strict: true });
  reader.push(await readFile(path));
  return reader.finish().durationSec;
}

async function journalLines(outDir: string, name = 'journal.jsonl'): Promise<string[]> {
  const text = await readFile(join(outDir, '.vredact', name), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean);
}

describe('vredact redact: exact recovery and shared folders', () => {
  it('two same-named inputs killed mid-upload each end with their own result', async () => {
    const t = await setup(['--sync-limit', '3', '--speed', '100']);
    try {
      await mkdir(join(t.dir, 'in', 'a'), { recursive: true });
      await mkdir(join(t.dir, 'in', 'b'), { recursive: true });
      await writeFile(join(t.dir, 'in', 'z.wav'), makeWav(4));
      await writeFile(join(t.dir, 'in', 'a', 'x.wav'), makeWav(5));
      await writeFile(join(t.dir, 'in', 'b', 'x.wav'), makeWav(9));
      // The service makes the jobs, then holds their 202s: the CLI dies without seeing their ids.
      await t.sandbox.holdAccepted(120_000);
      // Until the service has answered once, uploads go one at a time (the token gate): a first run
      // cut short leaves z.wav to look up, and that look-up lets both x.wav go out together next.
      const first = t.redact(['in/z.wav', '-o', 'out']);
      await until(async () => (await t.sandbox.stats()).asyncJobs >= 1);
      first.kill('SIGKILL');
      expect((await first).signal).toBe('SIGKILL');
      const both = t.redact(['in', '-o', 'out', '-c', '3']);
      await until(async () => (await t.sandbox.stats()).asyncJobs >= 3);
      both.kill('SIGKILL');
      expect((await both).signal).toBe('SIGKILL');
      await t.sandbox.holdAccepted(0);

      const second = await t.redact(['in', '-o', 'out', '-c', '2', '--json']);
      expect(second.exitCode).toBe(0);
      const byInput = Object.fromEntries(jsonLines(second.stdout).map((line) => [line.input, line.status]));
      expect(byInput).toMatchObject({ 'in/a/x.wav': 'done', 'in/b/x.wav': 'done' });
      expect((await t.sandbox.stats()).uploads).toBe(3);
      expect(await durationOf(join(t.dir, 'out', 'a', 'x.wav'))).toBeCloseTo(5, 0);
      expect(await durationOf(join(t.dir, 'out', 'b', 'x.wav'))).toBeCloseTo(9, 0);
      const names = (await journalLines(join(t.dir, 'out')))
        .map((line) => JSON.parse(line) as { event: string; uploadName?: string })
        .filter((line) => line.event === 'uploading' && line.uploadName?.startsWith('x.'))
        .map((line) => line.uploadName);
      expect(names).toEqual([
        expect.stringMatching(/^x\.[0-9a-f]{8}\.wav$/),
        expect.stringMatching(/^x\.[0-9a-f]{8}\.wav$/),
      ]);
      expect(names[0]).not.toBe(names[1]);
    } finally {
      await t.cleanup();
    }
  });

  it('saves an input whose name is 245 bytes long, and never sends it twice', async () => {
    const t = await setup();
    try {
      const name = `${'n'.repeat(241)}.wav`;
      await writeFile(join(t.dir, name), makeWav(1));
      const first = await t.redact([name, '-o', 'out', '--json']);
      expect(first.exitCode).toBe(0);
      expect(jsonLines(first.stdout)[0]).toMatchObject({ status: 'done' });
      expect(await readdir(join(t.dir, 'out'))).toContain(name);
      const second = await t.redact([name, '-o', 'out', '--json']);
      expect(jsonLines(second.stdout)[0]).toMatchObject({ status: 'skipped' });
      expect((await t.sandbox.stats()).uploads).toBe(1);
    } finally {
      await t.cleanup();
    }
  });

  it('three shards started at once on one output folder send every file exactly once', async () => {
    const t = await setup();
    try {
      const names = Array.from({ length: 12 }, (_, i) => `f${i}.wav`);
      await mkdir(join(t.dir, 'in'));
      for (const name of names) await writeFile(join(t.dir, 'in', name), makeWav(0.5));
      const runs = await Promise.all(
        [1, 2, 3].map((i) => t.redact(['in', '-o', 'out'], { env: { ...t.env, VREDACT_SHARD: `${i}/3` } })),
      );
      expect(runs.map((run) => run.exitCode)).toEqual([0, 0, 0]);
      expect((await t.sandbox.stats()).uploads).toBe(names.length);
      const files = await listFiles(join(t.dir, 'out'));
      expect(files.filter((file) => !file.startsWith('.vredact/'))).toEqual([...names].sort());
      expect(files.filter((file) => /^\.vredact\/journal\.\d-of-3\.jsonl$/.test(file))).toHaveLength(3);

      // A run without --shard reads every shard's journal: all done, nothing sent.
      const all = await t.redact(['in', '-o', 'out', '--json']);
      expect(all.exitCode).toBe(0);
      expect(jsonLines(all.stdout).at(-1)).toMatchObject({ summary: { skipped: names.length, done: 0 } });
      expect((await t.sandbox.stats()).uploads).toBe(names.length);
    } finally {
      await t.cleanup();
    }
  });

  it('runs whose shares overlap, started at once on one folder, never send a file twice', async () => {
    // The answers are slow, so that the runs are all under way together.
    const t = await setup(['--latency', '300']);
    try {
      const names = Array.from({ length: 12 }, (_, i) => `f${i}.wav`);
      await mkdir(join(t.dir, 'in'));
      for (const name of names) await writeFile(join(t.dir, 'in', name), makeWav(0.5));
      const shares = [['--shard', '1/3'], ['--shard', '2/3'], ['--shard', '1/2'], []];
      const runs = await Promise.all(shares.map((share) => t.redact(['in', '-o', 'out', ...share])));
      // Each either ran or refused before sending anything (exit 2, naming the overlap).
      for (const run of runs) {
        expect([0, 2]).toContain(run.exitCode);
        if (run.exitCode === 2)
          expect(run.stderr).toMatch(/another vredact run, over .*, is using the output folder/);
      }
      const finish = await t.redact(['in', '-o', 'out']);
      expect(finish.exitCode).toBe(0);
      expect((await t.sandbox.stats()).uploads).toBe(names.length);
      const files = await listFiles(join(t.dir, 'out'));
      expect(files.filter((file) => !file.startsWith('.vredact/'))).toEqual([...names].sort());
    } finally {
      await t.cleanup();
    }
  });

  it("each shard sweeps its own leftover temporary files, whatever host wrote them, and no other's", async () => {
    const t = await setup();
    try {
      await mkdir(join(t.dir, 'in'));
      for (let i = 0; i < 4; i++) await writeFile(join(t.dir, 'in', `f${i}.wav`), makeWav(0.5));
      await mkdir(join(t.dir, 'out'));
      // Shard 1's carries a live pid, as a dead run's on another host may; shard 2's a dead one.
      const leftover = (shard: number, pid: number) =>
        `.v-${shard}-of-2.${pid}-0123456789abcdef.vredact-partial`;
      const ofShard1 = leftover(1, process.pid);
      const ofShard2 = leftover(2, 2 ** 30);
      for (const name of [ofShard1, ofShard2]) await writeFile(join(t.dir, 'out', name), 'half a result');
      const hidden = async () =>
        (await readdir(join(t.dir, 'out'))).filter((name) => name.endsWith('.vredact-partial'));

      const first = await t.redact(['in', '-o', 'out', '--shard', '1/2']);
      expect(first.exitCode).toBe(0);
      expect(String(first.stderr)).toMatch(/removed 1 partial file/);
      expect(await hidden()).toEqual([ofShard2]);
      expect((await t.redact(['in', '-o', 'out', '--shard', '2/2'])).exitCode).toBe(0);
      expect(await hidden()).toEqual([]);
      expect((await listFiles(join(t.dir, 'out'))).filter((file) => file.endsWith('.wav'))).toHaveLength(4);
    } finally {
      await t.cleanup();
    }
  });

  it("in .vredact/ too, a shard removes only its own leftovers (a journal rewrite's, a lock's), never another shard's", async () => {
    const t = await setup();
    try {
      await mkdir(join(t.dir, 'in'));
      for (let i = 0; i < 4; i++) await writeFile(join(t.dir, 'in', `f${i}.wav`), makeWav(0.5));
      const state = join(t.dir, 'out', '.vredact');
      await mkdir(state, { recursive: true });
      // Shard 2's may be a live run's on another host, rewriting its journal: its pid says nothing here.
      const leftover = (shard: number) => `.v-${shard}-of-2.${2 ** 30}-0123456789abcdef.vredact-partial`;
      for (const shard of [1, 2]) await writeFile(join(state, leftover(shard)), 'a journal half rewritten');
      const hidden = async () => (await readdir(state)).filter((name) => name.endsWith('.vredact-partial'));

      expect((await t.redact(['in', '-o', 'out', '--shard', '1/2'])).exitCode).toBe(0);
      expect(await hidden()).toEqual([leftover(2)]);
      expect((await t.redact(['in', '-o', 'out', '--shard', '2/2'])).exitCode).toBe(0);
      expect(await hidden()).toEqual([]);
    } finally {
      await t.cleanup();
    }
  });

  it.each([
    ['beside the outputs', 'out'],
    ['in .vredact/', '.vredact'],
  ])(
    'a shard killed while it checks it can write %s leaves a temporary file that its own next run sweeps',
    async (_where, folder) => {
      const t = await setup();
      try {
        await mkdir(join(t.dir, 'in'));
        for (let i = 0; i < 4; i++) await writeFile(join(t.dir, 'in', `f${i}.wav`), makeWav(0.5));
        // The run dies (SIGKILL: the OOM killer, a drained node) with its write check's file made.
        const preload = join(t.dir, 'die-in-write-check.mjs');
        await writeFile(
          preload,
          [
            "import fs from 'node:fs/promises';",
            "import { basename, dirname } from 'node:path';",
            "import { syncBuiltinESMExports } from 'node:module';",
            'const open = fs.open;',
            'fs.open = async (path, ...rest) => {',
            '  const handle = await open(path, ...rest);',
            `  if (String(path).endsWith('.vredact-partial') && basename(dirname(String(path))) === '${folder}')`,
            "    process.kill(process.pid, 'SIGKILL');",
            '  return handle;',
            '};',
            'syncBuiltinESMExports();',
          ].join('\n'),
        );
        const killed = await t.redact(['in', '-o', 'out', '--shard', '1/2'], {
          env: { ...t.env, NODE_OPTIONS: `--import ${pathToFileURL(preload).href}` },
        });
        expect(killed.signal).toBe('SIGKILL');
        const dir = join(t.dir, 'out', ...(folder === 'out' ? [] : [folder]));
        const hidden = async () => (await readdir(dir)).filter((name) => name.endsWith('.vredact-partial'));
        expect(await hidden()).toHaveLength(1);

        expect((await t.redact(['in', '-o', 'out', '--shard', '1/2'])).exitCode).toBe(0);
        expect(await hidden()).toEqual([]);
      } finally {
        await t.cleanup();
      }
    },
  );

  it('a compacted journal still skips what is done', async () => {
    const t = await setup();
    try {
      await mkdir(join(t.dir, 'in'));
      for (let i = 0; i < 3; i++) await writeFile(join(t.dir, 'in', `f${i}.wav`), makeWav(0.5));
      expect((await t.redact(['in', '-o', 'out'])).exitCode).toBe(0);
      const lines = await journalLines(join(t.dir, 'out'));
      // Years of nightly re-runs: the same lines again and again.
      const history = Array.from({ length: 400 }, () => `${lines.join('\n')}\n`).join('');
      await appendFile(join(t.dir, 'out', '.vredact', 'journal.jsonl'), history);

      const rerun = await t.redact(['in', '-o', 'out', '--json']);
      expect(rerun.exitCode).toBe(0);
      expect(String(rerun.stderr)).toMatch(/compacted the journal/);
      expect(jsonLines(rerun.stdout).at(-1)).toMatchObject({ summary: { skipped: 3, done: 0 } });
      expect(await journalLines(join(t.dir, 'out'))).toHaveLength(3);
      expect((await t.sandbox.stats()).uploads).toBe(3);
    } finally {
      await t.cleanup();
    }
  });
});
