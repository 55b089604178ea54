/**
 * The live line's cost per problem line at a real terminal (a pseudo-terminal, raw bytes): each line
 * written above it clears it once and draws it once again. Before, a line written through the
 * token's backstop went through ora's hook on the backstop and again through its hook on
 * process.stderr: two clears and two draws for one line.
 */
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, fixture, isolatedEnv, tempDirPerTest } from '../helpers/cli.js';
import { type Pty, runInPty } from '../helpers/pty.js';
import { sendJson, startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { answerWithSpeech } from '../helpers/speech-files.js';

const TOKEN = 'vr_backstop_0123456789abcdef';
const MASKED = 'vr_…cdef';
const CUT_FILES = 3;
const dir = tempDirPerTest('vredact-e2e-redraws-');

let server: ScriptedServer | undefined;
let term: Pty | undefined;
afterEach(async () => {
  term?.kill();
  term = undefined;
  await server?.close();
  server = undefined;
});

/** ora's draw of the live line: synchronized output on, column 1, the frame and its text, off. */
const DRAW_START = '\u001b[?2026h';
const DRAW_END = '\u001b[?2026l';
const TO_COLUMN_1 = '\u001b[1G';
const ERASE_LINE = '\u001b[0K';

const count = (text: string, part: string): number => text.split(part).length - 1;

/**
 * For each problem line (a `warning:` line written while the live line is drawn): what was written
 * between the last draw before it and the line (the clear), and the first draw after it.
 */
function aroundProblemLines(raw: string): Array<{ before: string; after: string }> {
  const around: Array<{ before: string; after: string }> = [];
  for (const match of raw.matchAll(/warning: [^\r]*\r\n/g)) {
    const lastDrawEnd = raw.lastIndexOf(DRAW_END, match.index);
    const lineEnd = match.index + match[0].length;
    const nextDrawEnd = raw.indexOf(DRAW_END, lineEnd);
    around.push({
      before: lastDrawEnd < 0 ? '' : raw.slice(lastDrawEnd + DRAW_END.length, match.index),
      after: nextDrawEnd < 0 ? '' : raw.slice(lineEnd, nextDrawEnd + DRAW_END.length),
    });
  }
  return around;
}

describe('problem lines above the live line', () => {
  it('each clears the live line once and draws it once again, and the token is masked in every byte', async () => {
    // The first upload is held until every problem line is out, so that the live line turns
    // throughout; the others are refused.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let uploads = 0;
    server = await startScriptedServer(async (req, res) => {
      if (req.url !== '/api/speech-to-speech-biometric-redaction')
        return sendJson(res, 404, { error: 404, message: 'not found' });
      if (++uploads > 1) return sendJson(res, 400, { error: 400, message: 'refused' });
      await held;
      return answerWithSpeech(res);
    });
    // Recordings cut short, named after the token: each is sent with a warning that names it.
    const input = join(dir.path, 'in');
    await mkdir(input);
    await copyFile(fixture('speech-16bit.wav'), join(input, 'a-held.wav'));
    const speech = await readFile(fixture('speech-16bit.wav'));
    for (let i = 0; i < CUT_FILES; i++)
      await writeFile(join(input, `cut-${i}-${TOKEN}.wav`), speech.subarray(0, speech.length - 10_000));
    const env = isolatedEnv(join(dir.path, 'config'), {
      VREDACT_TOKEN: TOKEN,
      VREDACT_BASE_URL: server.baseUrl,
      NO_COLOR: '1',
    });

    term = runInPty(`node ${BIN} redact in -c 2 -o out`, { cwd: dir.path, env, columns: 200 });
    await term.waitFor(new RegExp(`(warning: [^\\r]*cut short[^\\r]*\\r\\n[^]*){${CUT_FILES}}`));
    release();
    expect(await term.exited).toBe(1); // the refused files failed
    const raw = term.output();

    expect(raw).not.toContain(TOKEN);
    const around = aroundProblemLines(raw);
    expect(around).toHaveLength(CUT_FILES);
    expect(raw).toContain(`warning: in/cut-0-${MASKED}.wav: the WAV file is cut short`);
    for (const { before, after } of around) {
      // One clear: back to column 1, the line erased; nothing else since the live line was drawn.
      expect(before).toBe(`${TO_COLUMN_1}${ERASE_LINE}`);
      // One draw at once, on the row the line left empty (so no erase in it).
      expect(after.startsWith(`${DRAW_START}${TO_COLUMN_1}`)).toBe(true);
      expect([count(after, DRAW_START), count(after, ERASE_LINE)]).toEqual([1, 0]);
      expect(after).toMatch(/redacting \d\/4/);
    }
  });

  it('a name holding the token, cut to fit a narrow terminal, shows no run of it', async () => {
    // The problem list fits each name to the width from its end: `…ckstop_0123456789abcdef.wav`
    // kept most of the token, which the whole-token mask did not find.
    server = await startScriptedServer((_req, res) => sendJson(res, 400, { error: 400, message: 'refused' }));
    const input = join(dir.path, 'in');
    await mkdir(input);
    await copyFile(fixture('speech-16bit.wav'), join(input, `${TOKEN}.wav`));
    await copyFile(fixture('speech-16bit.wav'), join(input, `a-long-folder-name-${TOKEN}-call.wav`));
    const env = isolatedEnv(join(dir.path, 'config'), {
      VREDACT_TOKEN: TOKEN,
      VREDACT_BASE_URL: server.baseUrl,
      NO_COLOR: '1',
    });
    term = runInPty(`node ${BIN} redact in -o out`, { cwd: dir.path, env, columns: 40 });
    expect(await term.exited).toBe(1);
    const raw = term.output();
    expect(raw).toContain('failed');
    const runs = Array.from({ length: TOKEN.length - 7 }, (_, i) => TOKEN.slice(i, i + 8));
    expect(runs.filter((run) => raw.includes(run))).toEqual([]);
  });
});
