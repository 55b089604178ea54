/** A file system that ignores letter case (vfat, exFAT, an SMB share), played by a lookup: none of this machine's does. */
import type { Stats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** `lstat` as such a file system answers it: a name finds the entry whose name differs only in case. */
export async function caselessLstat(path: string): Promise<Stats> {
  const folder = dirname(path);
  const name = basename(path);
  const names = await readdir(folder).catch(() => [] as string[]);
  const found = names.includes(name)
    ? name
    : names.find((other) => other.toLowerCase() === name.toLowerCase());
  return lstat(found === undefined ? path : join(folder, found));
}
