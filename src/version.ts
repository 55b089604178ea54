import { readFileSync } from 'node:fs';

/** Read once from package.json so the version has one source. */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** What `vredact --version` prints: enough for a bug report (`vredact 0.1.0 (node v22.1.0, linux-x64)`). */
export function versionLine(): string {
  return `vredact ${VERSION} (node ${process.version}, ${process.platform}-${process.arch})`;
}
