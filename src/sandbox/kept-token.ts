/** The generated token of a `--data-dir`, kept in it beside the jobs. */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoCode } from '../fs/errors.js';

/**
 * Every job belongs to the token that made it, so a sandbox restarted on the folder with a token of
 * its own would answer 404 for each job the folder kept: it takes the one kept there, or keeps
 * `fresh` (0600, as a token is a secret even here).
 */
export async function keptToken(root: string, fresh: string): Promise<string> {
  const path = join(root, 'token');
  try {
    const kept = (await readFile(path, 'utf8')).trim();
    if (/^[\x21-\x7e]+$/.test(kept)) return kept;
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
  }
  await writeFile(path, `${fresh}\n`, { mode: 0o600 });
  return fresh;
}
