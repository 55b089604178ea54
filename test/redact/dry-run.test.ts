/** `redact --dry-run` in-process, on a terminal with its live line: what its summary says. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.js';
import { runBatch } from '../../src/redact/batch.js';
import { createInterruptController } from '../../src/interrupt.js';
import { parseRedactOptions } from '../../src/redact/options.js';
import { memoryConfigStore } from '../../src/settings/config-store.js';
import { tempDirPerTest } from '../helpers/cli.js';
import { makeWav } from '../helpers/mp3.js';
import { recordingStream } from '../helpers/terminal-stream.js';

const dir = tempDirPerTest('vredact-dry-run-');

/** A dry run over two files with stdout and stderr terminals and the live line on; what stderr kept. */
async function dryRun(interrupted: boolean) {
  await mkdir(join(dir.path, 'in'), { recursive: true });
  for (const name of ['a.wav', 'b.wav']) await writeFile(join(dir.path, 'in', name), makeWav(0.5));
  const stdout = recordingStream(true, 80);
  const stderr = recordingStream(true, 80);
  const ctx = await createContext(
    { outDir: 'out', color: false, progress: true },
    {
      streams: { stdout, stderr, stdin: Readable.from([]) },
      env: {},
      cwd: dir.path,
      config: memoryConfigStore(),
    },
  );
  const controller = createInterruptController();
  // Ctrl-C as the live line first shows, once the journals are read, before the check: deterministic,
  // as no file is decided once it is seen. Before the journals' read ends, it ends the run with no
  // summary (no file was decided).
  const write = stderr.write.bind(stderr) as (chunk: string) => boolean;
  stderr.write = ((chunk: string) => {
    if (interrupted) controller.interrupt();
    return write(chunk);
  }) as typeof stderr.write;
  const code = await runBatch(
    ctx,
    { args: ['in'], listed: [], options: parseRedactOptions({ wait: true, dryRun: true }) },
    controller.signals,
  );
  // What the terminal shows last: the text after the last cursor movement.
  const final = stderr
    .text()
    .split(/\u001b\[[^a-zA-Z]*[a-zA-Z]/)
    .at(-1);
  return { code, final };
}

describe('the live summary of a dry run', () => {
  it('is a cross when Ctrl-C cut the check short (exit 130)', async () => {
    const { code, final } = await dryRun(true);
    expect(code).toBe(130);
    expect(final).toMatch(/^✖ /);
  });

  it('is a tick when every file was checked and would be sent (exit 0)', async () => {
    const { code, final } = await dryRun(false);
    expect(code).toBe(0);
    expect(final).toMatch(/^✔ .*would send 2/);
  });
});
