/**
 * Archives of call recordings hold every WAV and MP3 layout that recorders, phone systems and
 * converters write. The built binary, against the sandbox and against a hostile stand-in: a usable
 * recording is sent, its result verified and done; an unusable one is rejected with a one-line
 * reason, never a crash, a hang or a wrong "done".
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { measureAudioDuration } from '../../src/audio/index.js';
import { isolatedEnv, runCli, tempDir } from '../helpers/cli.js';
import { jsonLines, setup, type E2E } from '../helpers/e2e.js';
import { withLameTag, withoutFrameCount } from '../helpers/lame-tag.js';
import { makeMp3, makeWav } from '../helpers/mp3.js';
import {
  chunk,
  dataHeader,
  fmtBody,
  listInfoChunk,
  oddRecordings,
  rf64,
  riff,
} from '../helpers/odd-audio.js';
import { sendJson, startScriptedServer } from '../helpers/scripted-server.js';

const REDACT = '/api/speech-to-speech-biometric-redaction';

/** The unusable recordings and why they are refused. */
const REJECTED: Record<string, RegExp> = {
  'bad-data-before-fmt.wav': /^not readable: a WAV file whose data chunk comes before its fmt chunk/,
  'bad-ima-adpcm.wav':
    /^not readable: a WAV file with an unsupported encoding \(format tag 0x0011\); convert it to PCM WAV first \(e\.g\. ffmpeg -i in\.wav -c:a pcm_s16le out\.wav\)$/,
};

/** What each file really is, whatever its name says. */
const isMp3 = (bytes: Buffer) => !/^(RIFF|RF64)/.test(bytes.toString('latin1', 0, 4));

const outputOf = (name: string) => name.replace(/\.[^.]+$/, '.wav');

/** Seconds of audio in a WAV that vredact verified (any layout it accepts). */
function wavSeconds(wav: Buffer): number {
  const fmt = wav.indexOf('fmt ');
  const rate = wav.readUInt32LE(fmt + 12);
  const block = wav.readUInt16LE(fmt + 20);
  const data = wav.indexOf('data', fmt);
  return Math.floor((wav.length - data - 8) / block) / rate;
}

let recordings: Record<string, Buffer>;
let e2e: E2E;

beforeAll(async () => {
  recordings = await oddRecordings();
  e2e = await setup(['--sync-limit', '30']);
  for (const [name, bytes] of Object.entries(recordings)) await writeFile(join(e2e.dir, name), bytes);
});

afterAll(async () => {
  await e2e?.cleanup();
});

describe('odd but real recordings against the sandbox', () => {
  test('every usable one is done, its result as long as its input; the others are rejected, saying why', async () => {
    const names = Object.keys(recordings).sort();
    const run = await e2e.redact([...names, '-o', 'out', '--json']);
    expect(run.exitCode).toBe(1);
    const outcomes = new Map(jsonLines(run.stdout).map((line) => [line['input'], line]));
    for (const name of names) {
      const outcome = outcomes.get(name);
      const refused = REJECTED[name];
      if (refused) {
        expect
          .soft(outcome, name)
          .toMatchObject({ status: 'rejected', reason: expect.stringMatching(refused) });
        continue;
      }
      expect.soft(outcome, name).toMatchObject({ status: 'done' });
      // The sandbox keeps the duration to the sample at 16 kHz, as vredact measured it.
      const output = await readFile(join(e2e.dir, 'out', outputOf(name)));
      const input = await measureAudioDuration(join(e2e.dir, name));
      expect.soft(Math.abs(wavSeconds(output) - input), name).toBeLessThanOrEqual(1 / 16_000);
    }
    // One warning, for the recording cut short; no stack trace, nothing else.
    expect(String(run.stderr)).toMatch(
      /^warning: cut-short\.wav: the WAV file is cut short: its audio holds 109 KiB of the 219 KiB its header declares; the 3\.5 s present is sent$/,
    );
  });
});

describe('MP3 header frames against the sandbox', () => {
  test('a result lasts as long as its input to the sample, with or without gapless figures: done with --duration-tolerance 0s', async () => {
    // 8 kHz in, 16 kHz out: no rounding, so a tolerance of 0 holds. The sandbox cut 529 samples from
    // the first three (ffmpeg trims nothing without a LAME extension) and decoded the VBRI frame.
    const frames = 100;
    const info = makeMp3({ frames, infoHeader: 'Info' });
    const files: Record<string, [Buffer, number]> = {
      'exact/info.mp3': [info, frames * 576],
      'exact/xing.mp3': [
        makeMp3({ frames, infoHeader: 'Xing', bitrate: (i) => (i % 2 ? 8 : 16) }),
        frames * 576,
      ],
      'exact/lame-unnamed.mp3': [withLameTag(info, 576, 1000, '\0\0\0\0'), frames * 576],
      'exact/vbri.mp3': [makeMp3({ frames, infoHeader: 'VBRI' }), frames * 576],
      'exact/lame.mp3': [withLameTag(info, 576, 1000), frames * 576 - 576 - 1000],
      // The sandbox decoded 529 samples fewer than these were measured: the decoder's delay, at the
      // end, was counted in a padding under it; and a tag without a frame count was trimmed.
      'exact/lame-short-padding.mp3': [withLameTag(info, 576, 100), frames * 576 - 576 - 529],
      'exact/lame-no-count.mp3': [
        withLameTag(withoutFrameCount(makeMp3({ frames, infoHeader: 'Xing' })), 576, 1000),
        frames * 576,
      ],
    };
    await mkdir(join(e2e.dir, 'exact'));
    for (const [name, [bytes]] of Object.entries(files)) await writeFile(join(e2e.dir, name), bytes);
    const run = await e2e.redact(['exact', '-o', 'exact-out', '--json', '--duration-tolerance', '0s']);
    expect(jsonLines(run.stdout).filter((line) => line['status'] !== 'done')).toEqual([
      expect.objectContaining({ summary: expect.objectContaining({ done: 7 }) }),
    ]);
    expect(run.exitCode).toBe(0);
    for (const [name, [, samples]] of Object.entries(files)) {
      const output = await readFile(join(e2e.dir, 'exact-out', outputOf(name.slice('exact/'.length))));
      expect.soft(wavSeconds(output), name).toBe(samples / 8000);
    }
  });
});

/** The file part of a multipart upload: its name, its type and its bytes. */
function filePart(body: Buffer): { name: string; type: string; bytes: Buffer } {
  const text = body.toString('latin1');
  const head = /name="source_audio"; filename="([^"]*)"\r\nContent-Type: ([^\r]*)\r\n\r\n/.exec(text);
  if (!head) throw new Error('no source_audio part');
  const start = head.index + head[0].length;
  const boundary = text.slice(0, text.indexOf('\r\n'));
  const end = text.indexOf(`\r\n${boundary}`, start);
  return { name: head[1] as string, type: head[2] as string, bytes: body.subarray(start, end) };
}

/** A result in one of the layouts a WAV writer may choose, of `seconds` of silence at 16 kHz. */
function oddResult(seconds: number, layout: number): Buffer {
  const plain = makeWav(seconds, 16_000);
  const pcm = plain.subarray(44);
  const mono16 = fmtBody({ tag: 1, channels: 1, rate: 16_000, bits: 16, block: 2 });
  switch (layout % 4) {
    case 0:
      return rf64(mono16, pcm);
    case 1:
      // A streaming writer that never knew the length.
      return riff([chunk('fmt ', mono16), dataHeader(0xffffffff), pcm]);
    case 2: {
      const float = Buffer.alloc(pcm.length * 2);
      return riff([
        chunk('fmt ', fmtBody({ tag: 3, channels: 1, rate: 16_000, bits: 32, block: 4, subFormat: 3 })),
        chunk('data', float),
      ]);
    }
    default:
      return riff([listInfoChunk(), chunk('fmt ', mono16), chunk('data', pcm), listInfoChunk()]);
  }
}

describe('odd but real recordings against a hostile service', () => {
  test('each is sent named and typed as what it is, and a result in any usable layout is done', async () => {
    const temp = await tempDir('vredact-odd-');
    const received = new Map<string, { name: string; type: string; bytes: Buffer }>();
    let index = 0;
    const server = await startScriptedServer(async (req, res, body) => {
      if (req.method === 'POST' && req.url === REDACT) {
        const upload = index++;
        const part = filePart(body);
        const file = join(temp.path, `received-${upload}`);
        await writeFile(file, part.bytes);
        received.set(part.name.replace(/\.[0-9a-f]{8}\.[^.]*$/, ''), part);
        const wav = oddResult(await measureAudioDuration(file), upload);
        res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length });
        return void res.end(wav);
      }
      if (req.method === 'GET' && req.url === '/api/jobs') return sendJson(res, 200, { jobs: [] });
      sendJson(res, 404, { error: 404, message: 'not here' });
    });
    try {
      const usable = Object.entries(recordings).filter(([name]) => !REJECTED[name]);
      for (const [name, bytes] of usable) await writeFile(join(temp.path, name), bytes);
      const env = isolatedEnv(join(temp.path, '.config'), {
        VREDACT_BASE_URL: server.baseUrl,
        VREDACT_TOKEN: 'vr_test_odd',
      });
      const run = await runCli(['redact', ...usable.map(([name]) => name), '-o', 'out', '--json'], {
        env,
        cwd: temp.path,
      });
      expect(jsonLines(run.stdout).filter((line) => line['status'] !== 'done')).toEqual([
        expect.objectContaining({ summary: expect.anything() }),
      ]);
      expect(run.exitCode).toBe(0);
      for (const [name, bytes] of usable) {
        const upload = received.get(name.replace(/\.[^.]+$/, ''));
        expect.soft(upload?.bytes.equals(bytes), name).toBe(true);
        const [type, extension] = isMp3(bytes) ? ['audio/mpeg', 'mp3'] : ['audio/wav', 'wav'];
        expect.soft(upload?.type, name).toBe(type);
        expect.soft(upload?.name.endsWith(`.${extension}`), `${name} sent as ${upload?.name}`).toBe(true);
      }
    } finally {
      await server.close();
      await temp.cleanup();
    }
  });
});
