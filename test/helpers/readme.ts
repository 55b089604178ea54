/** The README as tests run it: its fenced blocks, and `vredact` on PATH as an installed package leaves it. */
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { BIN, REPO_ROOT } from './cli.js';

/** The README's fenced block of `language` whose text contains `marker`. */
export async function readmeBlock(language: string, marker: string): Promise<string> {
  const readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(new RegExp(`^\`\`\`${language}\\n([^]*?)^\`\`\`$`, 'gm'))].map(
    (m) => m[1] ?? '',
  );
  const block = blocks.find((text) => text.includes(marker));
  if (!block) throw new Error(`README: no \`\`\`${language} block containing "${marker}"`);
  return block;
}

/** `<parent>/bin`, holding `vredact` and `node`, as an installed package would leave them on PATH. */
export async function binDir(parent: string): Promise<string> {
  const dir = join(parent, 'bin');
  await mkdir(dir);
  await symlink(BIN, join(dir, 'vredact'));
  await symlink(process.execPath, join(dir, 'node'));
  return dir;
}
