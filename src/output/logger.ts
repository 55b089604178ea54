import type { Writable } from 'node:stream';
import { escapeControls } from './sanitize.js';

/**
 * Progress and diagnostics, always on stderr. Every line has its control characters escaped: messages
 * carry file names and the service's text. The stream it is given masks the token (secret-backstop.ts).
 */
export interface Logger {
  /** Normal progress; silenced by --quiet. */
  info(message: string): void;
  /** Something the user should know even with --quiet. */
  warn(message: string): void;
  error(message: string): void;
  /** Only with --verbose. */
  debug(message: string): void;
}

export function createLogger(stderr: Writable, options: { quiet: boolean; verbose: boolean }): Logger {
  const write = (line: string) => stderr.write(`${escapeControls(line)}\n`);
  return {
    info: (message) => {
      if (!options.quiet) write(message);
    },
    warn: (message) => write(`warning: ${message}`),
    error: (message) => write(`error: ${message}`),
    debug: (message) => {
      if (options.verbose) write(`debug: ${message}`);
    },
  };
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {}, debug() {} };
