/** Which of a job's content items is its result. */
import { isNamed, type JobContentItem, type NamedContentItem } from '../api/schemas.js';

function stemOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

/**
 * The result among a job's content items: a WAV item that is not the uploaded file itself, preferring
 * one named after the upload (its unique stem); the latest when there are several.
 */
export function pickResult(
  items: readonly JobContentItem[],
  uploadName: string,
): NamedContentItem | undefined {
  // An item with no name as text cannot be asked for: never the result.
  const wavs = items
    .filter(isNamed)
    .filter((item) => /\.wav$/i.test(item.file_name) && item.file_name !== uploadName);
  const stem = stemOf(uploadName);
  const named = stem ? wavs.filter((item) => item.file_name.startsWith(stem)) : [];
  const candidates = named.length > 0 ? named : wavs;
  if (candidates.length <= 1) return candidates[0];
  // Compared as integers of any size: ids past 2^53 that differ read as one Number.
  const byId = (item: JobContentItem) => (/^\d+$/.test(item.id) ? BigInt(item.id) : undefined);
  return [...candidates].sort((a, b) => {
    const [x, y] = [byId(a), byId(b)];
    if (x !== undefined && y !== undefined && x !== y) return x < y ? -1 : 1;
    return a.created_at.localeCompare(b.created_at);
  })[candidates.length - 1];
}
