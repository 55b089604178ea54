import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
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
