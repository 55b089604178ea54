/**
 * The audio files under a folder, with @nodelib/fs.walk: fast-glob's own walker, without fast-glob's
 * patterns. A pattern's `**` is a regular expression whose `.` never matches a line break, so a
 * folder with one in its name (`a\nb`, `c\rd`) was skipped in silence, with every file under it.
 */
import type { readdir } from 'node:fs';
import { availableParallelism } from 'node:os';

/** Audio file names looked for in folders: `.wav` and `.mp3`, any letter case. */
const AUDIO_NAME = /\.(wav|mp3)$/i;

export interface FolderWalk {
  /** A folder below the walked one (its path relative to it, `/`-separated) not to go into. */
  skip?: string | undefined;
  /** The walker's readdir (see listing-errors.ts): errors are noted there, and the walk goes on. */
  readdir: typeof readdir;
  /** Ends the walk at once (a first interrupt): the folders not yet read are not, and it rejects. */
  stop?: AbortSignal | undefined;
}

/**
 * Calls `found` with the path, relative to `dir` and `/`-separated, of each `.wav` and `.mp3` name
 * (any letter case, not a folder's) under it, following links; hidden files and folders (`.name`) are left out.
 */
export async function walkFolder(
  dir: string,
  walk: FolderWalk,
  found: (path: string) => void,
): Promise<void> {
  // A CommonJS module: its exports are the default export, under Node.js as in the bundle.
  const { walkStream } = (await import('@nodelib/fs.walk')).default;
  walk.stop?.throwIfAborted();
  await new Promise<void>((resolve, reject) => {
    const stream = walkStream(dir, {
      basePath: '',
      // Folders read at once: fast-glob's default, one per CPU. Unbounded, a folder of 100 folders of
      // 1,000 files held all their entries at once (8 MB more at 100,000 inputs).
      concurrency: availableParallelism(),
      pathSegmentSeparator: '/',
      followSymbolicLinks: true,
      throwErrorOnBrokenSymbolicLink: false,
      fs: { readdir: walk.readdir },
      errorFilter: () => true,
      deepFilter: (entry) => !entry.name.startsWith('.') && entry.path !== walk.skip,
      // Not only regular files: a broken link, a FIFO or a device named `x.wav` is found, to be
      // rejected with its reason (never opened) rather than skipped in silence.
      entryFilter: (entry) =>
        !entry.dirent.isDirectory() && !entry.name.startsWith('.') && AUDIO_NAME.test(entry.name),
    });
    // Read by its events: the stream's async iterator never ends on it.
    stream.on('data', (entry: { path: string }) => found(entry.path));
    const onStop = () => {
      stream.destroy();
      reject(walk.stop?.reason as Error);
    };
    walk.stop?.addEventListener('abort', onStop, { once: true });
    stream.once('error', reject);
    stream.once('end', resolve);
    stream.once('close', () => walk.stop?.removeEventListener('abort', onStop));
  });
}
