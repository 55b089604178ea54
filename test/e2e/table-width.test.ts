/**
 * `jobs list` and `jobs content` as a person's terminal shows them (tmux): a table never wider than
 * the terminal, its rows whole (the terminal wraps none of them), a long file name wrapped inside its
 * cell and all there, and the ids whole.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, isolatedEnv, tempDir } from '../helpers/cli.js';
import { type ScriptedServer, sendJson, startScriptedServer } from '../helpers/scripted-server.js';
import { hasTmux, startTmux, type TmuxTerminal } from '../helpers/tmux.js';

const JOB_IDS = [
  '6b1f0c1e-8a57-4c3a-9d4e-0123456789ab',
  '7c2e1d2f-9b68-4d4b-8e5f-123456789abc',
  '8d3f2e3a-ac79-4e5c-9f6a-23456789abcd',
];
const NAMES = [
  '2024-03-14_15-23-11_+4915112345679_outbound_agent-4712.65f6507e.redacted.wav',
  '2024-03-14_15-41-07_+4930901820455_inbound_agent-0815.9a31c2d4.redacted.wav',
  'short.wav',
];

/** A service with three jobs, the first of them holding NAMES. */
function startService(): Promise<ScriptedServer> {
  return startScriptedServer((req, res) => {
    if (req.url === '/api/jobs')
      return sendJson(res, 200, {
        jobs: JOB_IDS.map((job_id, i) => ({
          job_id,
          token: 'vr_live_fedcba9876543210zz',
          created_at: `2024-03-1${4 - i}T15:23:11Z`,
        })),
      });
    if (req.url === `/api/jobs/${JOB_IDS[0]}/content`)
      return sendJson(res, 200, {
        jobContent: NAMES.map((file_name, i) => ({
          id: 4711 + i,
          job_id: JOB_IDS[0],
          file_name,
          audio_duration: 62 + i,
          created_at: '2024-03-14T15:23:11Z',
        })),
      });
    return sendJson(res, 404, { error: 404, message: 'not found' });
  });
}

let server: ScriptedServer | undefined;
let term: TmuxTerminal | undefined;
let dir: Awaited<ReturnType<typeof tempDir>> | undefined;
afterEach(async () => {
  await term?.kill();
  term = undefined;
  await server?.close();
  server = undefined;
  await dir?.cleanup();
  dir = undefined;
});

/** The rows on screen after `vredact <args>` ran to its end in a terminal `columns` wide. */
async function screen(args: string, columns: number): Promise<string[]> {
  server = await startService();
  dir = await tempDir('vredact-table-width-');
  term = await startTmux(`node ${BIN} ${args}`, {
    cwd: dir.path,
    env: isolatedEnv(dir.path, {
      VREDACT_BASE_URL: server.baseUrl,
      VREDACT_TOKEN: 'vr_live_fedcba9876543210zz',
      NO_COLOR: '1',
    }),
    columns,
    rows: 40,
  });
  expect(await term.exited()).toBe(0);
  return term.rows();
}

/** The table's rows, from its top border to its bottom one. */
function table(rows: string[]): string[] {
  return rows.slice(
    rows.findIndex((row) => row.startsWith('┌')),
    rows.findLastIndex((row) => row.startsWith('└')) + 1,
  );
}

/** The text of each cell of a row drawn between `│` borders. */
const cells = (row: string) =>
  row
    .split('│')
    .slice(1, -1)
    .map((cell) => cell.trim());

/** A drawn table's rows under its header, each the lines of its cells (a row begins with a first cell). */
function drawnRows(drawn: string[]): string[][][] {
  const items: string[][][] = [];
  for (const line of drawn.slice(3, -1).map(cells)) {
    if (line[0] !== '') items.push([]);
    items.at(-1)?.push(line);
  }
  return items;
}

/** The text of column `column` of a drawn row, its lines joined as its words were (a time) or not (a name). */
const columnText = (row: string[][], column: number, joiner = '') =>
  row
    .map((line) => line[column] ?? '')
    .filter(Boolean)
    .join(joiner);

describe.skipIf(!hasTmux)('tables fit the terminal', () => {
  for (const columns of [80, 60]) {
    it(`jobs content at ${columns} columns: rows whole, one rule under the header, names all there`, async () => {
      const drawn = table(await screen(`jobs content ${JOB_IDS[0]}`, columns));
      // Every row of the screen is a row of the table, no piece of one the terminal wrapped.
      for (const row of drawn) expect(row).toMatch(/^[┌│├└].*[┐│┤┘]$/);
      expect(drawn.filter((row) => row.startsWith('├'))).toHaveLength(1);
      const items = drawnRows(drawn);
      expect(items.map((item) => item[0]?.[0])).toEqual(['4711', '4712', '4713']);
      expect(items.map((item) => columnText(item, 1))).toEqual(NAMES);
      expect(items.map((item) => item[0]?.[2])).toEqual(['1:02', '1:03', '1:04']);
      // The service's time, moved to UTC, says so for a person in another zone.
      expect(items.map((item) => columnText(item, 3, ' '))).toEqual(Array(3).fill('2024-03-14 15:23:11 UTC'));
    });
  }

  it('jobs list at 80 columns: one line a job in the frame, its time marked UTC', async () => {
    const drawn = table(await screen('jobs list', 80));
    for (const row of drawn) expect(row).toMatch(/^[┌│├└].*[┐│┤┘]$/);
    expect(cells(drawn[1] ?? '')).toEqual(['JOB ID', 'CREATED', 'TOKEN']);
    expect(drawn.slice(3, -1).map(cells)).toEqual(
      JOB_IDS.map((id, i) => [id, `2024-03-1${4 - i} 15:23:11 UTC`, 'vr_…10zz']),
    );
  });

  it('jobs list at 61 columns, the narrowest the frame fits: the date above the time above its UTC', async () => {
    const drawn = table(await screen('jobs list', 61));
    expect(drawn.length).toBeGreaterThan(0);
    for (const row of drawn) expect(row).toMatch(/^[┌│├└].*[┐│┤┘]$/);
    for (const row of drawn) expect(row).toHaveLength(61);
    const items = drawnRows(drawn);
    expect(items.map((item) => item[0]?.[0])).toEqual(JOB_IDS);
    expect(items.map((item) => item.map((line) => line[1]))).toEqual(
      JOB_IDS.map((_, i) => [`2024-03-1${4 - i}`, '15:23:11', 'UTC']),
    );
  });

  it('jobs list at 60 columns: plain columns, the date above the time and its UTC, ids whole', async () => {
    const rows = await screen('jobs list', 60);
    const start = rows.findIndex((row) => row.startsWith('JOB ID'));
    expect(rows.slice(start)).toEqual([
      'JOB ID                                CREATED       TOKEN',
      ...JOB_IDS.flatMap((id, i) => [
        `${id}  2024-03-1${4 - i}    vr_…10zz`,
        `${' '.repeat(38)}15:23:11 UTC`,
      ]),
    ]);
  });
});

/** A stacked row's cells: each header (indented 2) with the lines of text under it (indented 4). */
function fields(item: string): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  let current: string[] = [];
  for (const line of item.split('\n').slice(1)) {
    if (/^ {2}\S/.test(line)) found[line.trim()] = current = [];
    else if (line.trim() !== '') current.push(line.trim());
  }
  return found;
}

describe.skipIf(!hasTmux)('a terminal too narrow for the columns side by side', () => {
  it('jobs list at 40 columns: each job a block, its id whole on a line, its time and token under it', async () => {
    const rows = await screen('jobs list', 40);
    const start = rows.indexOf(JOB_IDS[0] ?? '');
    // The id alone is 36 columns: side by side, the terminal wrapped each row, a time cut as `20` / `24-03-14`.
    expect(rows.slice(start)).toEqual(
      JOB_IDS.flatMap((id, i) => [id, `  CREATED  2024-03-1${4 - i} 15:23:11 UTC`, '  TOKEN    vr_…10zz']),
    );
  });

  it('jobs content at 20 columns: no row wider than the terminal, names whole across their lines', async () => {
    const rows = await screen(`jobs content ${JOB_IDS[0]}`, 20);
    const start = rows.indexOf('4711');
    expect(start).toBeGreaterThanOrEqual(0);
    for (const row of rows.slice(start)) expect(row.length).toBeLessThanOrEqual(20);
    const items = rows
      .slice(start)
      .join('\n')
      .split(/^(?=\d+$)/m);
    expect(items.map((item) => item.split('\n')[0])).toEqual(['4711', '4712', '4713']);
    expect(items.map((item) => fields(item)['FILE NAME']?.join(''))).toEqual(NAMES);
    expect(items.map((item) => fields(item).CREATED)).toEqual(Array(3).fill(['2024-03-14', '15:23:11 UTC']));
  });
});
