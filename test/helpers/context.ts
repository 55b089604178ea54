import { PassThrough, Readable } from 'node:stream';
import { type Context, createContext, type TerminalFlags } from '../../src/context.js';
import { type ConfigStore, memoryConfigStore } from '../../src/settings/config-store.js';
import type { CommandFlags } from '../../src/settings/settings.js';

/** A captured output stream that can pretend to be a terminal. */
function capture(isTTY: boolean, columns: number | undefined) {
  const stream = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number };
  stream.isTTY = isTTY;
  if (columns !== undefined) stream.columns = columns;
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  return { stream, text: () => text };
}

export interface TestContext {
  ctx: Context;
  config: ConfigStore;
  stdout: () => string;
  stderr: () => string;
}

/** A context for running a command in-process: memory config, captured streams, given stdin. */
export async function testContext(
  options: {
    flags?: CommandFlags & TerminalFlags;
    env?: NodeJS.ProcessEnv;
    config?: ConfigStore;
    stdin?: string;
    tty?: boolean;
    /** The terminal's width; a terminal with a width can redraw a progress line. */
    columns?: number;
    /** The working folder the command sees (default the process's). */
    cwd?: string;
  } = {},
): Promise<TestContext> {
  const out = capture(options.tty === true, options.columns);
  const err = capture(options.tty === true, options.columns);
  const config = options.config ?? memoryConfigStore();
  const stdin = Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]);
  const ctx = await createContext(options.flags ?? {}, {
    streams: { stdout: out.stream, stderr: err.stream, stdin },
    env: options.env ?? {},
    config,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  return { ctx, config, stdout: out.text, stderr: err.text };
}
