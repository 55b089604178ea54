/**
 * The file system's limits on an output's name and path: an output that could not be saved (nor its
 * temporary file beside it) is rejected before anything is sent.
 */
import { NAME_MAX_BYTES, PATH_MAX_BYTES } from '../fs/atomic-write.js';
import type { FoundFile } from './found-file.js';

/** UTF-8 takes at most 3 bytes per UTF-16 unit: a path this short has no part over the limit. */
const SURELY_SHORT = Math.floor(NAME_MAX_BYTES / 3);

/**
 * An output whose name (or a folder's) is longer than a file system takes cannot be saved: it is
 * rejected before anything is sent. Its temporary name is short and fixed, so it always fits.
 */
export function nameTooLong(outputRel: string): string | undefined {
  if (outputRel.length <= SURELY_SHORT) return undefined;
  for (const part of outputRel.split('/')) {
    const bytes = Buffer.byteLength(part, 'utf8');
    if (bytes > NAME_MAX_BYTES) {
      return `its output name is ${bytes} bytes long, more than the ${NAME_MAX_BYTES} a file name may have; rename the input`;
    }
  }
  return undefined;
}

/**
 * An output whose path is longer than a system call takes cannot be written, nor can its temporary
 * name beside it: it is rejected before anything is sent. A path past PATH_MAX was sent, and failed
 * with ENAMETOOLONG only when its answer was to be saved, on every run.
 */
export function pathTooLong(file: FoundFile, temporaryBytes: number): string | undefined {
  const output = file.output;
  if (output.length * 3 + temporaryBytes <= PATH_MAX_BYTES) return undefined;
  const nameBytes = Buffer.byteLength(file.outputName, 'utf8');
  const folderBytes = Buffer.byteLength(output, 'utf8') - nameBytes;
  const bytes = folderBytes + Math.max(nameBytes, temporaryBytes);
  if (bytes <= PATH_MAX_BYTES) return undefined;
  const what = nameBytes >= temporaryBytes ? 'its output path' : 'the path of its temporary file';
  return `${what} would be ${bytes} bytes long, more than the ${PATH_MAX_BYTES} a path may have; choose an output folder with a shorter path (-o)`;
}
