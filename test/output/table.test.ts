import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { columnsOf } from '../../src/output/fit.js';
import { printJson, printJsonLine, printTable } from '../../src/output/table.js';

function out(isTTY: boolean) {
  const stdout = new PassThrough() as PassThrough & { isTTY?: boolean };
  stdout.isTTY = isTTY;
  let text = '';
  stdout.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  return { io: { stdout, stdoutIsTTY: isTTY, color: false }, text: () => text };
}

const HOSTILE = 'x\u001b[2J\u001b]0;owned\u0007\r.wav';

describe('printTable', () => {
  it('prints tab-separated lines without a header in a pipe, control characters escaped', async () => {
    const { io, text } = out(false);
    await printTable(
      io,
      ['ID', 'NAME'],
      [
        ['1', HOSTILE],
        ['2', 'a\tb\nc'],
      ],
    );
    expect(text()).toBe('1\tx\\x1b[2J\\x1b]0;owned\\x07\\r.wav\n2\ta b\\nc\n');
  });

  it('prints a table with a header on a terminal, with no raw escape from the data', async () => {
    const { io, text } = out(true);
    await printTable(io, ['ID', 'NAME'], [['1', HOSTILE]]);
    expect(text()).toMatch(/│ ID │ NAME/);
    expect(text()).toContain('x\\x1b[2J');
    expect(text()).not.toMatch(/[\u001b\r\u0007]/);
  });
});

describe('printJson', () => {
  it('lets JSON escape control characters by its own rules', () => {
    const { io, text } = out(false);
    printJson(io, { name: HOSTILE });
    printJsonLine(io, { n: 1 });
    expect(text()).toBe(`{\n  "name": "x\\u001b[2J\\u001b]0;owned\\u0007\\r.wav"\n}\n{"n":1}\n`);
  });
});

describe('printTable on a terminal of known width', () => {
  const CALL = '2024-03-14_15-23-11_+4915112345679_outbound_agent-4712.65f6507e.redacted.wav';
  const WIDE = '通話録音_営業部_山田太郎_二〇二四年三月十四日_顧客対応記録.wav';
  const HEAD = ['ID', 'FILE NAME', 'DURATION', 'CREATED'];
  const ROWS = [
    // Times as `jobs content` gives a terminal's table: moved to UTC, and saying so.
    ['123456', CALL, '1:02', '2024-03-14 15:23:11 UTC'],
    ['123457', WIDE, '0:12', '2024-03-14 15:23:12 UTC'],
    ['123458', 'short.wav', '0:12', '2024-03-14 15:23:12 UTC'],
  ];
  const NARROWABLE = [
    { column: 1, min: 12 },
    { column: 3, min: 10, words: true },
  ];

  async function drawn(columns: number | undefined): Promise<string[]> {
    const { io, text } = out(true);
    Object.assign(io.stdout, { columns });
    await printTable(io, HEAD, ROWS, NARROWABLE);
    return text().trimEnd().split('\n');
  }

  /** The cells of one table line (between its borders). */
  const cells = (line: string) => line.split('│').slice(1, -1);

  for (const columns of [80, 60, 50]) {
    it(`keeps every line within ${columns} columns, one rule under the header, ids whole, names whole across their lines`, async () => {
      const lines = await drawn(columns);
      for (const line of lines) expect(columnsOf(line)).toBeLessThanOrEqual(columns);
      // Top, header, the rule under it, rows, bottom: no rule between rows.
      expect(lines.filter((line) => line.startsWith('├'))).toHaveLength(1);
      const body = lines.slice(3, -1);
      for (const line of body) expect(line).toMatch(/^│.*│$/);
      const rowsOf = body.reduce<string[][][]>((rows, line) => {
        const parts = cells(line).map((cell) => cell.trim());
        if (parts[0] !== '') rows.push([]);
        rows.at(-1)?.push(parts);
        return rows;
      }, []);
      expect(rowsOf.map((row) => row[0]?.[0])).toEqual(['123456', '123457', '123458']);
      expect(rowsOf.map((row) => row.map((parts) => parts[1]).join(''))).toEqual([CALL, WIDE, 'short.wav']);
      // A time wraps between its words, if at all: its UTC stays, never cut.
      expect(
        rowsOf.map((row) =>
          row
            .map((parts) => parts[3])
            .filter(Boolean)
            .join(' '),
        ),
      ).toEqual(ROWS.map((row) => row[3]));
    });
  }

  it('draws one line a row at natural width when the width is not known', async () => {
    const lines = await drawn(undefined);
    expect(lines).toHaveLength(3 + ROWS.length + 1);
    expect(lines[3]).toContain(CALL);
  });

  it('gives up the frame for plain columns when the frame does not fit, names still whole', async () => {
    const lines = await drawn(44);
    for (const line of lines) expect(columnsOf(line)).toBeLessThanOrEqual(44);
    expect(lines.join('\n')).not.toMatch(/[│┌└├]/);
    expect(lines[0]).toMatch(/^ID {6}FILE NAME/);
    const nameColumn = (line: string) => line.slice(8, 8 + 12).trimEnd();
    const ids = lines.slice(1).map((line) => line.slice(0, 6));
    expect(ids.filter((id) => id.trim() !== '')).toEqual(['123456', '123457', '123458']);
    // Narrow text: the name's pieces start at the same column on each of its lines.
    const callLines = lines.slice(
      1,
      lines.findIndex((line) => line.startsWith('123457')),
    );
    expect(callLines.map(nameColumn).join('')).toBe(CALL);
  });
});
