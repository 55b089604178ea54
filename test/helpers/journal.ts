import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JournalRecord } from '../../src/redact/journal.js';
import { standingRecord } from '../../src/status/earlier-output.js';
import type { LatestRecords } from '../../src/status/read-journals.js';
import { stateOf, type StatusRecord, statusRecordOf } from '../../src/status/records.js';

/** One journal line as the engine writes it; tests give only the fields they care about. */
export function journalLine(fields: Record<string, unknown>): string {
  return JSON.stringify({ v: 1, size: 100, mtimeMs: 1, options: 'abcd', ...fields });
}

/** A journal line as status shows it (every field kept, as for the manifest). */
export function statusRecord(fields: Record<string, unknown>): StatusRecord {
  return statusRecordOf(JSON.parse(journalLine(fields)) as JournalRecord, true);
}

/** Records as `vredact status` reads them from the journals, by input. */
export function latestOf(records: readonly StatusRecord[]): LatestRecords {
  const byInput = new Map(records.map((record) => [record.input, record]));
  return {
    size: byInput.size,
    get: (input) => byInput.get(input),
    stateOf: (input) => {
      const record = byInput.get(input);
      return record && stateOf(record.event, record.inFlight);
    },
    hasStandingOutput: (input) => {
      const record = byInput.get(input);
      return record !== undefined && standingRecord(record) !== undefined;
    },
    keys: () => byInput.keys(),
  };
}

/** Writes `<outDir>/.vredact/<name>` from records (objects, or raw text for damaged lines). */
export async function writeJournal(
  outDir: string,
  records: ReadonlyArray<Record<string, unknown> | string>,
  name = 'journal.jsonl',
): Promise<string> {
  const dir = join(outDir, '.vredact');
  await mkdir(dir, { recursive: true });
  const path = join(dir, name);
  const text = records.map((record) => (typeof record === 'string' ? record : journalLine(record)));
  await writeFile(path, text.map((line) => `${line}\n`).join(''));
  return path;
}

/** Each input's latest journal event, by the input's file name. */
export async function latestEvents(outDir: string): Promise<Record<string, string>> {
  const text = await readFile(join(outDir, '.vredact', 'journal.jsonl'), 'utf8');
  const latest: Record<string, string> = {};
  for (const line of text.split('\n').filter(Boolean)) {
    const { input, event } = JSON.parse(line) as { input: string; event: string };
    latest[input.slice(input.lastIndexOf('/') + 1)] = event;
  }
  return latest;
}

/** The lines of `<outDir>/.vredact/<name>`, parsed, in order. */
export async function readJournal(
  outDir: string,
  name = 'journal.jsonl',
): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(join(outDir, '.vredact', name), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
