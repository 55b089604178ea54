/**
 * Before anything is sent (an upload of this run could otherwise pass for an interrupted one): the
 * inputs whose uploads were cut short are looked up among the service's jobs, by their exact upload
 * names (see reconcile.ts). The run holds no upload name: the names that the recent jobs list are
 * looked for in the journals, and matched to the inputs whose uploads carried them.
 */
import type { Engine } from './engine.js';
import { isStopping } from './engine.js';
import { sameIdentity } from './journal.js';
import type { JournalState } from './journal-read.js';
import { jobIdsNamed, type UploadLine, uploadsNamed } from './journal-search.js';
import type { PlanEntries } from './plan.js';
import { type FoundJob, type InterruptedInput, interruptedWarning, reconcile } from './reconcile.js';
import { decisionFor, type TriageOptions } from './triage.js';

export async function lookUpInterrupted(
  engine: Engine,
  entries: PlanEntries,
  journal: JournalState,
  fingerprint: string,
  overwrite: boolean,
): Promise<Map<string, FoundJob>> {
  if (journal.interrupted.size === 0 || engine.stop.aborted) return new Map();
  const triage: TriageOptions = { journal, fingerprint, overwrite, found: undefined };
  const paths = journal.files.map((file) => file.path);
  // Each input the look-up is for, one at a time: none of them is held.
  const forEachLookedFor = async (
    visit: (decided: Awaited<ReturnType<typeof decisionFor>>, realPath: string) => void,
  ) => {
    for (const entry of entries) {
      if (entry.rejected || !journal.interrupted.has(entry.realPath, entry.row)) continue;
      const decided = await decisionFor(entry, triage);
      if (decided.decision.action === 'reconcile') visit(decided, entry.realPath);
    }
  };
  const search = { count: 0, sinceMs: Number.POSITIVE_INFINITY };
  await forEachLookedFor(({ decision }) => {
    if (decision.action !== 'reconcile') return;
    search.count++;
    search.sinceMs = Math.min(search.sinceMs, decision.sinceMs);
  });
  const carried = new Map<string, UploadLine>();
  const inputsNamed = async (names: ReadonlySet<string>) => {
    const lines = await uploadsNamed(paths, names);
    const inputs: InterruptedInput<string>[] = [];
    await forEachLookedFor(({ decision, record }, realPath) => {
      // Any upload of this very file (same size, time and options) whose job a recent job lists.
      const same = (lines.get(realPath) ?? []).filter((line) => record && sameIdentity(line, record));
      if (same.length === 0 || decision.action !== 'reconcile') return;
      for (const line of same) carried.set(line.uploadName, line);
      inputs.push({
        key: realPath,
        uploadNames: same.map((line) => line.uploadName),
        sinceMs: decision.sinceMs,
      });
    });
    return inputs;
  };
  // Only reads, whose result a stop discards: the first interrupt ends them (engine.stop), as it ends
  // the waits for jobs, rather than the second.
  const { client, gate, stop } = engine;
  const found = await reconcile(search, {
    inputsNamed,
    listJobs: async (makeSink) => {
      const listed = await gate.run(() => client.eachJob(makeSink, stop), stop);
      // A listing that parsed is an answer only the service gives: a job of an earlier run answered
      // 404 later in the run is then taken for gone without a listing of its own (service-heard.ts).
      engine.serviceHeard.hear();
      return listed;
    },
    jobContent: (jobId) =>
      engine.request(() => gate.run(() => client.jobContent(jobId, { signal: stop }), stop)),
    namedInJournal: (jobIds) => jobIdsNamed(paths, jobIds),
    isStop: (error) => stop.aborted || isStopping(engine, error),
    stop: engine.stop,
    now: () => engine.clock.now(),
    problem: (problem) => engine.log.warn(interruptedWarning(problem, search.count)),
    debug: (message) => engine.log.debug(message),
  });
  for (const job of found.values()) {
    const line = carried.get(job.uploadName);
    job.durationSec = line?.durationSec;
    job.inputSha256 = line?.inputSha256;
  }
  return found;
}
