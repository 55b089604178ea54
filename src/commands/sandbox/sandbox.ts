import type { Context } from '../../context.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { lockRefreshMs } from '../../fs/lock-lease.js';
import { describeFsError, isLocalFsError } from '../../fs/errors.js';
import { printJsonLine } from '../../output/table.js';
import { DataDirInUseError, startSandbox } from '../../sandbox/index.js';
import { takeOverInterrupts } from '../../signals.js';
import { parseSandboxFlags } from './options.js';
import { exportLines } from './export-lines.js';

/**
 * Resolves at the first SIGINT or SIGTERM; a second one leaves at once (exit 130), as in redact and
 * download. (See takeOverInterrupts for why other listeners are set aside meanwhile.)
 */
function waitForStopSignal(): Promise<void> {
  return new Promise((resolve) => {
    let stopping = false;
    takeOverInterrupts(() => {
      if (stopping) process.exit(ExitCode.interrupted);
      stopping = true;
      resolve();
    });
  });
}

export async function runSandbox(
  ctx: Context,
  _args: string[],
  flags: Record<string, unknown>,
  untilStopped: () => Promise<unknown> = waitForStopSignal,
): Promise<number> {
  const options = parseSandboxFlags(flags, ctx.cwd);
  // Listen for signals before starting, so an early Ctrl-C still closes cleanly.
  const stopped = untilStopped();
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  try {
    sandbox = await startSandbox({
      ...options,
      // Its context is given no environment (the user's settings are not the sandbox's): the
      // test-only refresh of the lock is read from the process's, as a run reads it from its own.
      lockRefreshMs: lockRefreshMs(process.env),
      onRequestLine: (line) => ctx.log.info(line),
      onDebug: (line) => ctx.log.debug(line),
      onWarning: (line) => ctx.log.warn(line),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new UsageError(
        `a port of the sandbox is already in use (${(error as Error).message})`,
        'pick another with --port (0 picks a free one)',
      );
    }
    if (error instanceof DataDirInUseError) {
      throw new UsageError(
        `--data-dir ${options.dataDir}: another sandbox is using it (${error.owner})`,
        error.hint,
      );
    }
    if (code === 'EADDRNOTAVAIL')
      throw new UsageError(`cannot listen on ${options.host}: ${(error as Error).message}`);
    // Starting only creates and reads the data folder: a file-system error there is the flag's.
    if (options.dataDir !== undefined && isLocalFsError(error)) {
      const why = code === 'EEXIST' || code === 'ENOTDIR' ? 'not a folder' : describeFsError(error);
      throw new UsageError(`--data-dir ${options.dataDir}: ${why}`, 'give a folder the sandbox can write to');
    }
    throw error;
  }
  // --json: one line, so that a script can read it while the sandbox goes on serving.
  if (ctx.settings.json) printJsonLine(ctx.io, { base_url: sandbox.baseUrl, token: sandbox.tokens[0] });
  else ctx.streams.stdout.write(exportLines(sandbox.baseUrl, sandbox.tokens[0] as string));
  // Run in the background (`&`, as the README's quick start does), no keyboard reaches it: the pid
  // says how to stop it there, and is true at a terminal too.
  ctx.log.info(
    `sandbox: API on ${sandbox.baseUrl}, signed URLs on ${sandbox.filesUrl}; ` +
      `${options.dataDir ? `data in ${sandbox.dataDir}` : 'data in a temporary folder, removed on exit'}. ` +
      `Stop it with Ctrl-C, or kill ${process.pid}.`,
  );
  const takenOver = new Promise<unknown>((resolve) => {
    const { lost } = sandbox;
    if (lost.aborted) resolve(lost.reason);
    else lost.addEventListener('abort', () => resolve(lost.reason), { once: true });
  });
  const ended = await Promise.race([stopped.then(() => undefined), takenOver]);
  if (ended !== undefined) {
    // It has stopped serving already; the folder and its lock are the other sandbox's.
    await sandbox.close();
    throw new CliError((ended as Error).message, ExitCode.partial);
  }
  ctx.log.info('sandbox: stopping');
  await sandbox.close();
  // Stopped by a signal, like any command: a script can tell it from a sandbox that ended on its own.
  return ExitCode.interrupted;
}
