import type { Logger } from '../../src/output/logger.js';

/** A logger that keeps every line but debug ones, as `level: message`, for tests to assert on. */
export function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (message) => lines.push(`info: ${message}`),
    warn: (message) => lines.push(`warn: ${message}`),
    error: (message) => lines.push(`error: ${message}`),
    debug: () => {},
  };
}
