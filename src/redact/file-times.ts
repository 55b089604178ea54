/**
 * How long files take, for the ETA: when each file under way was begun (its upload started, or this
 * run started waiting for its job) and the mean time from that to its outcome. Holds only the files
 * under way, so memory follows `-c` and the jobs waited for, not the size of the batch.
 */
export interface FileTimesSnapshot {
  underWay: number;
  newestBegunAt: number | undefined;
  typicalFileMs: number | undefined;
}

export class FileTimes {
  readonly #begunAt = new Map<string, number>();
  #settledMs = 0;
  #settled = 0;

  /** A file begun; a file already under way (an upload whose job is now waited for) keeps its start. */
  begun(input: string, at: number): void {
    if (!this.#begunAt.has(input)) this.#begunAt.set(input, at);
  }

  /** A file's outcome: its time counts toward the typical one if it had begun. */
  settled(input: string, at: number): void {
    const begunAt = this.#begunAt.get(input);
    if (begunAt === undefined) return;
    this.#begunAt.delete(input);
    this.#settledMs += Math.max(0, at - begunAt);
    this.#settled++;
  }

  snapshot(): FileTimesSnapshot {
    let newest: number | undefined;
    for (const at of this.#begunAt.values()) if (newest === undefined || at > newest) newest = at;
    return {
      underWay: this.#begunAt.size,
      newestBegunAt: newest,
      typicalFileMs: this.#settled > 0 ? this.#settledMs / this.#settled : undefined,
    };
  }
}
