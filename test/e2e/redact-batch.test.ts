/**
 * `vredact redact` end to end: the built binary against the sandbox. Each test has its own folder and
 * sandbox. Build first: `npm run build`.
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { framesFor, makeWav, writeMp3 } from '../helpers/mp3.js';
import { isWav, jsonLines, listFiles, setup } from '../helpers/e2e.js';
import { OUR_PROCESS_SPACE } from '../helpers/process-space.js';

/** Outputs under a folder, without the journal and lock. */
async function outputsUnder(root: string): Promise<string[]> {
  return (await listFiles(root)).filter((name) => !name.startsWith('.vredact/'));
}

function plainLines(stdout: unknown): Record<string, { status: string; detail: string }> {
  const rows = String(stdout)
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t'));
  return Object.fromEntries(
    rows.map(([status, input, detail]) => [input, { status: status ?? '', detail: detail ?? '' }]),
  );
}

describe('vredact redact, end to end', () => {
  it('redacts the good files of a mixed batch and rejects the bad ones with reasons, never uploading them', async () => {
    const t = await setup();
    try {
      const good = [
        'speech-16bit.wav',
        'speech-8k-ulaw.wav',
        'speech-24bit-stereo.wav',
        'speech-float.wav',
        'speech-cbr.mp3',
        'speech-vbr-noxing.mp3',
      ];
      for (const name of good) await t.fixture(name, `in/${name}`);
      for (const name of ['empty.wav', 'not-audio.wav', 'header-only.wav'])
        await t.fixture(name, `in/${name}`);
      await t.fixture('empty.mp3', 'in/nothing.mp3');
      await writeMp3(join(t.dir, 'in', 'long.mp3'), { frames: framesFor(61 * 60) }); // 3.6 MB, 61 min
      await writeFile(join(t.dir, 'in', 'big.wav'), makeWav(700, 8000)); // 11.2 MB: over the 10 MiB default

      const result = await t.redact(['in', 'missing.wav']);
      expect(result.exitCode).toBe(1);
      const byInput = plainLines(result.stdout);
      for (const name of good) {
        const output = name.replace(/\.mp3$/, '.wav');
        expect(byInput[`in/${name}`]).toEqual({ status: 'done', detail: `redacted/${output}` });
        expect(await isWav(join(t.dir, 'redacted', output))).toBe(true);
      }
      expect(byInput['in/empty.wav']).toEqual({ status: 'rejected', detail: 'empty file (0 bytes)' });
      expect(byInput['in/nothing.mp3']).toEqual({ status: 'rejected', detail: 'empty file (0 bytes)' });
      expect(byInput['in/not-audio.wav']?.detail).toMatch(/not a WAV or MP3 file/);
      expect(byInput['in/header-only.wav']?.detail).toMatch(/no audio/);
      // Each says what to do next: split the recording, or raise the local limit.
      expect(byInput['in/long.mp3']?.detail).toBe(
        'too long: 1:01:00, the limit is 1:00:00; split the recording, or raise the limit with --max-duration if the service takes longer ones',
      );
      expect(byInput['in/big.wav']?.detail).toBe(
        'too large: 10.7 MiB, the limit is 10 MiB; split the recording, or raise the limit with --max-size if the service takes larger ones',
      );
      expect(byInput['missing.wav']).toEqual({ status: 'rejected', detail: 'no such file or folder' });
      expect(String(result.stderr)).toMatch(
        /redacted 6, skipped 0 \(already done\), rejected 7, failed 0, pending 0/,
      );
      expect((await t.sandbox.stats()).uploads).toBe(good.length);
      expect(await outputsUnder(join(t.dir, 'redacted'))).toHaveLength(good.length);
    } finally {
      await t.cleanup();
    }
  });

  it('takes synchronous and asynchronous results in one run; a re-run uploads nothing', async () => {
    const t = await setup(['--sync-limit', '3', '--speed', '100']);
    try {
      await writeFile(join(t.dir, 'short.wav'), makeWav(2, 16000)); // answered synchronously
      await t.fixture('speech-16bit.wav', 'long.wav'); // 7 s: a job
      await writeMp3(join(t.dir, 'music.mp3'), { frames: framesFor(20) }); // 20 s: a job

      const first = await t.redact(['short.wav', 'long.wav', 'music.mp3', '--json', '-o', 'out']);
      expect(first.exitCode).toBe(0);
      const lines = jsonLines(first.stdout);
      expect(lines.at(-1)).toEqual({ summary: { done: 3, skipped: 0, rejected: 0, failed: 0, pending: 0 } });
      const byInput = Object.fromEntries(lines.slice(0, -1).map((line) => [line.input, line]));
      expect(byInput['short.wav']).toEqual({ input: 'short.wav', output: 'out/short.wav', status: 'done' });
      expect(byInput['long.wav']).toMatchObject({
        status: 'done',
        output: 'out/long.wav',
        jobId: expect.any(String),
      });
      expect(byInput['music.mp3']).toMatchObject({
        status: 'done',
        output: 'out/music.wav',
        jobId: expect.any(String),
      });
      for (const name of ['short.wav', 'long.wav', 'music.wav'])
        expect(await isWav(join(t.dir, 'out', name))).toBe(true);
      const stats = await t.sandbox.stats();
      expect(stats).toMatchObject({ uploads: 3, syncResults: 1, asyncJobs: 2 });
      expect(await outputsUnder(join(t.dir, 'out'))).toEqual(['long.wav', 'music.wav', 'short.wav']);

      const again = await t.redact(['short.wav', 'long.wav', 'music.mp3', '--json', '-o', 'out']);
      expect(again.exitCode).toBe(0);
      const statuses = jsonLines(again.stdout).map((line) => line.status ?? line.summary);
      expect(statuses.slice(0, -1)).toEqual(['skipped', 'skipped', 'skipped']);
      expect((await t.sandbox.stats()).uploads).toBe(3);
    } finally {
      await t.cleanup();
    }
  });

  it('mirrors a folder and a quoted glob under the output folder', async () => {
    const t = await setup();
    try {
      await t.fixture('speech-8k-ulaw.wav', 'calls/2026/11/Grüße a.wav');
      await t.fixture('speech-8k-alaw.wav', 'calls/2026/12/B.WAV');
      await t.fixture('speech-mpeg25.mp3', 'calls/x.mp3');
      await t.fixture('speech-8k-ulaw.wav', 'calls/.hidden/skip.wav');
      await writeFile(join(t.dir, 'calls', 'notes.txt'), 'not audio');

      const folder = await t.redact(['calls', '-o', 'by-folder']);
      expect(folder.exitCode).toBe(0);
      expect(await outputsUnder(join(t.dir, 'by-folder'))).toEqual([
        '2026/11/Grüße a.wav',
        '2026/12/B.wav',
        'x.wav',
      ]);

      const glob = await t.redact(['calls/**/*.{wav,WAV}', '-o', 'by-glob']);
      expect(glob.exitCode).toBe(0);
      expect(await outputsUnder(join(t.dir, 'by-glob'))).toEqual(['2026/11/Grüße a.wav', '2026/12/B.wav']);
      for (const name of await outputsUnder(join(t.dir, 'by-glob'))) {
        expect(await isWav(join(t.dir, 'by-glob', name))).toBe(true);
      }
      const named = await t.redact(['calls/2026/11/Grüße a.wav', '-o', 'named']);
      expect(named.exitCode).toBe(0);
      expect(await outputsUnder(join(t.dir, 'named'))).toEqual(['Grüße a.wav']);
      expect((await t.sandbox.stats()).uploads).toBe(6);
    } finally {
      await t.cleanup();
    }
  });

  it('an escaped [ in a quoted glob is a literal: take\\[1\\]/**/*.wav mirrors as take1/**/*.wav does', async () => {
    const t = await setup();
    try {
      for (const folder of ['take[1]', 'take1']) {
        await t.fixture('speech-8k-ulaw.wav', `${folder}/a/x.wav`);
        await t.fixture('speech-8k-ulaw.wav', `${folder}/a/y[2].wav`);
      }
      const runs: Array<[string, string, string[]]> = [
        ['take1/**/*.wav', 'plain', ['a/x.wav', 'a/y[2].wav']],
        // The fixed part is the folder take[1]: its name is not kept under the output folder.
        ['take\\[1\\]/**/*.wav', 'escaped', ['a/x.wav', 'a/y[2].wav']],
        ['take\\[1\\]/a/y\\[2\\].wav', 'escaped-name', ['y[2].wav']],
        ['take\\[1\\]/*/x.wav', 'escaped-then-star', ['a/x.wav']],
        // Escaped after a wildcard: the fixed part is `.`, and the whole path is kept.
        ['tak?\\[1\\]/a/*\\[2\\].wav', 'star-then-escaped', ['take[1]/a/y[2].wav']],
      ];
      for (const [pattern, out, expected] of runs) {
        const run = await t.redact([pattern, '-o', out]);
        expect(run.exitCode, `${pattern}: ${String(run.stderr)}`).toBe(0);
        expect(await outputsUnder(join(t.dir, out)), pattern).toEqual(expected);
      }
    } finally {
      await t.cleanup();
    }
  });

  it('sends duplicates once and rejects two inputs on one output before sending anything', async () => {
    const t = await setup();
    try {
      await t.fixture('speech-8k-ulaw.wav', 'in/a.wav');
      await t.fixture('speech-8k-ulaw.wav', 'col/x.wav');
      await t.fixture('speech-mpeg25.mp3', 'col/x.mp3');
      await writeFile(join(t.dir, 'list.txt'), '# from a script\nin/a.wav\n\n./in/a.wav\n');
      const result = await t.redact([
        'in/a.wav',
        'in',
        'in/*.wav',
        '--files-from',
        'list.txt',
        'col',
        '--json',
      ]);
      expect(result.exitCode).toBe(1);
      const lines = jsonLines(result.stdout).slice(0, -1);
      expect(lines.filter((line) => line.input === 'in/a.wav')).toEqual([
        { input: 'in/a.wav', output: 'redacted/a.wav', status: 'done' },
      ]);
      const rejected = lines.filter((line) => line.status === 'rejected');
      expect(rejected.map((line) => [line.input, line.reason])).toEqual(
        expect.arrayContaining([
          ['col/x.wav', expect.stringContaining('col/x.mp3')],
          ['col/x.mp3', expect.stringContaining('col/x.wav')],
        ]),
      );
      expect((await t.sandbox.stats()).uploads).toBe(1);
    } finally {
      await t.cleanup();
    }
  });

  it('takes a find -print0 list with -0: names with a line break or a leading # are sent, each once', async () => {
    const t = await setup();
    try {
      await t.fixture('speech-8k-ulaw.wav', 'in/a\nb.wav');
      await t.fixture('speech-8k-ulaw.wav', 'in/#2.wav');
      const list = 'in/a\nb.wav\0in/#2.wav\0./in/#2.wav\0';
      const result = await t.redact(['-0', '--files-from', '-', '--json'], { input: list });
      expect(result.exitCode, String(result.stderr)).toBe(0);
      expect(await outputsUnder(join(t.dir, 'redacted'))).toEqual(['#2.wav', 'a\nb.wav']);
      expect((await t.sandbox.stats()).uploads).toBe(2);
      const alone = await t.redact(['-0', 'in']);
      expect(alone.exitCode).toBe(2);
      expect(String(alone.stderr)).toContain('-0 (--null) is about the --files-from list');
    } finally {
      await t.cleanup();
    }
  });

  // Only Linux file systems take any bytes in a name.
  it.skipIf(process.platform !== 'linux')(
    'rejects a folder and a file whose names are not UTF-8, by their paths, and sends the rest (exit 1)',
    async () => {
      const t = await setup();
      try {
        await mkdir(join(t.dir, 'in', 'ok'), { recursive: true });
        await writeFile(join(t.dir, 'in', 'ok', 'a.wav'), makeWav(0.5));
        const inDir = Buffer.from(join(t.dir, 'in', '/'));
        // `d\xe9c/b.wav` and `c\xff.wav`: Latin-1 bytes, as an old archive has them.
        await mkdir(Buffer.concat([inDir, Buffer.from('64e963', 'hex')]));
        await writeFile(
          Buffer.concat([inDir, Buffer.from('64e963', 'hex'), Buffer.from('/b.wav')]),
          makeWav(0.5),
        );
        await writeFile(
          Buffer.concat([inDir, Buffer.from('63ff', 'hex'), Buffer.from('.wav')]),
          makeWav(0.5),
        );
        const run = await t.redact(['in', '-o', 'out', '--json']);
        expect(run.exitCode).toBe(1);
        const byInput = Object.fromEntries(jsonLines(run.stdout).map((line) => [line.input, line]));
        expect(byInput['in/ok/a.wav']).toMatchObject({ status: 'done' });
        for (const input of ['in/d\uFFFDc', 'in/c\uFFFD.wav']) {
          expect(byInput[input]).toMatchObject({
            status: 'rejected',
            reason: expect.stringMatching(/not valid UTF-8/),
          });
        }
        expect((await t.sandbox.stats()).uploads).toBe(1);
      } finally {
        await t.cleanup();
      }
    },
  );

  it('sends a file whose name holds an escape sequence, with `_` for it in the name sent', async () => {
    const t = await setup();
    try {
      await mkdir(join(t.dir, 'in'));
      await writeFile(join(t.dir, 'in', 'x\u001b[1m.wav'), makeWav(0.5));
      const run = await t.redact(['in', '-o', 'out', '--json']);
      expect(run.exitCode, String(run.stderr)).toBe(0);
      expect(jsonLines(run.stdout)[0]).toMatchObject({ input: 'in/x\u001b[1m.wav', status: 'done' });
      expect(await isWav(join(t.dir, 'out', 'x\u001b[1m.wav'))).toBe(true);
      const journal = await readFile(join(t.dir, 'out', '.vredact', 'journal.jsonl'), 'utf8');
      expect(journal).toMatch(/"uploadName":"x_\[1m\.[0-9a-f]{8}\.wav"/);
    } finally {
      await t.cleanup();
    }
  });

  it('sends a WAV cut short (a recorder stopped mid-call) with a warning; its result is checked against the audio present', async () => {
    const t = await setup();
    try {
      await mkdir(join(t.dir, 'in'), { recursive: true });
      await writeFile(join(t.dir, 'in', 'cut.wav'), makeWav(4, 8000).subarray(0, 44 + 16000 * 3));
      const dry = await t.redact(['in', '--dry-run']);
      expect(String(dry.stderr)).toContain(
        'warning: in/cut.wav: the WAV file is cut short: its audio holds 46.9 KiB of the 62.5 KiB its header declares; the 3 s present is sent',
      );
      const result = await t.redact(['in']);
      expect(result.exitCode).toBe(0);
      expect(String(result.stderr)).toContain('warning: in/cut.wav: the WAV file is cut short');
      expect(plainLines(result.stdout)['in/cut.wav']).toEqual({ status: 'done', detail: 'redacted/cut.wav' });
      expect(await isWav(join(t.dir, 'redacted', 'cut.wav'))).toBe(true);
    } finally {
      await t.cleanup();
    }
  });

  it('--dry-run prints the plan and sends nothing, without even a token', async () => {
    const t = await setup();
    try {
      await t.fixture('speech-16bit.wav', 'in/a.wav');
      await t.fixture('not-audio.wav', 'in/b.wav');
      const env = { ...t.env, VREDACT_TOKEN: undefined };
      const result = await t.redact(['in', '--dry-run'], { env });
      expect(result.exitCode).toBe(1);
      expect(plainLines(result.stdout)).toEqual({
        'in/a.wav': { status: 'would-send', detail: 'redacted/a.wav' },
        'in/b.wav': { status: 'rejected', detail: 'not a WAV or MP3 file' },
      });
      expect(await t.sandbox.requests()).toEqual([]);
      await expect(stat(join(t.dir, 'redacted'))).rejects.toThrow();

      const json = await t.redact(['in/a.wav', '--dry-run', '--json'], { env });
      expect(json.exitCode).toBe(0);
      expect(jsonLines(json.stdout)).toEqual([
        { input: 'in/a.wav', output: 'redacted/a.wav', status: 'would-send' },
        { summary: { 'would-send': 1, 'would-collect': 0, skipped: 0, rejected: 0 }, dryRun: true },
      ]);
      expect(await t.sandbox.requests()).toEqual([]);
    } finally {
      await t.cleanup();
    }
  });

  it('stops at once on a refused token: exit 3, no more requests than -c, one failure and the rest pending', async () => {
    const t = await setup();
    try {
      for (let i = 0; i < 8; i++) await t.fixture('speech-8k-ulaw.wav', `in/f${i}.wav`);
      const result = await t.redact(['in', '-c', '4', '--json'], {
        env: { ...t.env, VREDACT_TOKEN: 'vr_wrong_000000000000' },
      });
      expect(result.exitCode).toBe(3);
      const sent = (await t.sandbox.requests()).length;
      expect(sent).toBeGreaterThanOrEqual(1);
      expect(sent).toBeLessThanOrEqual(4);
      expect(String(result.stderr)).toMatch(/401|403/);
      expect(await outputsUnder(join(t.dir, 'redacted'))).toEqual([]);
      const lines = jsonLines(result.stdout);
      expect(lines.at(-1)).toMatchObject({ summary: { done: 0, failed: 1, pending: 7 } });
      // The upload the service refused became no job: it is not left `uploading` for the next run to
      // look up (uploads aborted in flight with it are: their fate is not known).
      const failed = lines.find((line) => line.status === 'failed')?.input as string;
      const journal = (await readFile(join(t.dir, 'redacted', '.vredact', 'journal.jsonl'), 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { input: string; event: string });
      const last = new Map(journal.map((line) => [line.input, line.event]));
      expect(last.get(join(t.dir, failed))).toBe('withdrawn');
    } finally {
      await t.cleanup();
    }
  });

  it('splits a folder between three shards that together cover every file once', async () => {
    const t = await setup();
    try {
      const names = Array.from({ length: 12 }, (_, i) => `day-${i}/call ${i}.wav`);
      for (const name of names) await t.fixture('speech-8k-ulaw.wav', `archive/${name}`);
      const shares: string[][] = [];
      for (const shard of ['1/3', '2/3', '3/3']) {
        const result = await t.redact(['archive', '--shard', shard, '-o', `out-${shard[0]}`]);
        expect(result.exitCode).toBe(0);
        shares.push(await outputsUnder(join(t.dir, `out-${shard[0]}`)));
      }
      const union = shares.flat().sort();
      expect(union).toEqual([...names].sort());
      expect(new Set(union).size).toBe(names.length);
      expect(shares.filter((share) => share.length > 0).length).toBeGreaterThan(1);
      expect((await t.sandbox.stats()).uploads).toBe(names.length);
    } finally {
      await t.cleanup();
    }
  });

  it('refuses to run on an output folder locked by a live run, and takes over a dead one', async () => {
    const t = await setup();
    try {
      await t.fixture('speech-8k-ulaw.wav', 'in/a.wav');
      await mkdir(join(t.dir, 'redacted', '.vredact'), { recursive: true });
      const { hostname } = await import('node:os');
      const lock = join(t.dir, 'redacted', '.vredact', 'lock');
      // The test runner itself is alive: its lock is a live run's (in this container and boot).
      await writeFile(
        lock,
        JSON.stringify({
          pid: process.pid,
          hostname: hostname(),
          ...OUR_PROCESS_SPACE,
          startedAt: 'now',
          id: 'a',
        }),
      );
      const refused = await t.redact(['in']);
      expect(refused.exitCode).toBe(2);
      expect(String(refused.stderr)).toMatch(/another vredact run is using the output folder/);
      expect((await t.sandbox.stats()).uploads).toBe(0);

      await writeFile(
        lock,
        JSON.stringify({
          pid: 2 ** 30,
          hostname: hostname(),
          ...OUR_PROCESS_SPACE,
          startedAt: 'then',
          id: 'b',
        }),
      );
      const taken = await t.redact(['in']);
      expect(taken.exitCode).toBe(0);
      expect(String(taken.stderr)).toMatch(/took over the lock/);
      expect((await t.sandbox.stats()).uploads).toBe(1);
      await expect(stat(lock)).rejects.toThrow(); // released at the end
    } finally {
      await t.cleanup();
    }
  });
});
