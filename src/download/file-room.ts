/**
 * The room one downloaded file holds on the output's disk (fs/free-space.ts) while it is on its way:
 * its estimate before it is asked for, its announced length once it passes its cap, and, for a body of no
 * announced length (chunked, or encoded), room claimed ahead of its bytes as they come. Without that,
 * such a body (a file of no listed duration, or one longer than its estimate) was written until the
 * disk was full: the reserve kept free for the journal and other writers was eaten, and the run met
 * "no space left" rather than the rule every other file is held to.
 */
import { GATHER_BYTES } from '../fs/atomic-write.js';
import { NoRoomOnDisk, type OutputSpace } from '../fs/free-space.js';

/** How far ahead of a body's bytes room is claimed: one statfs per this many bytes. */
export const ROOM_STEP_BYTES = 8 * 1024 * 1024;

export class FileRoom {
  private releaseClaim: (() => void) | undefined;

  constructor(
    private readonly space: OutputSpace,
    private readonly folder: string,
    private readonly fileName: string,
  ) {}

  /** Claims `need` bytes in place of what was claimed; throws NoRoomOnDisk when they do not fit. */
  claim(need: number, display = this.fileName): void {
    this.release();
    const claim = this.space.claim(this.folder, need, display);
    if (claim instanceof NoRoomOnDisk) throw claim;
    this.releaseClaim = claim;
  }

  /** Gives the room back: the file is on disk (statfs counts it now) or not coming. */
  release(): void {
    this.releaseClaim?.();
    this.releaseClaim = undefined;
  }

  /**
   * Passes on a body announced at `length`, claiming that in place of the estimate before its first
   * byte: after its cap's checks (size-cap.ts), so that a length no file may have fails the file alone
   * as too large, rather than stopping the downloads for want of room it would never use.
   */
  async *announced(body: AsyncIterable<Uint8Array>, length: number): AsyncIterable<Uint8Array> {
    let claimed = false;
    for await (const chunk of body) {
      if (!claimed) this.claim(length);
      claimed = true;
      yield chunk;
    }
  }

  /**
   * Passes on a body of no announced length, `claimed` bytes of it already claimed, claiming room
   * ahead of it as it comes: past that, before a byte is passed on that the disk has no room for
   * (beside the files on their way and the reserve), it throws NoRoomOnDisk. What was written is in
   * statfs's count; only what the writer may still hold (its gathered bytes) and what is to come is
   * claimed again.
   */
  async *asItComes(body: AsyncIterable<Uint8Array>, claimed = 0): AsyncIterable<Uint8Array> {
    let passed = 0;
    let covered = claimed;
    for await (const chunk of body) {
      passed += chunk.byteLength;
      if (passed > covered) {
        const unwritten = Math.min(passed, GATHER_BYTES + chunk.byteLength);
        this.claim(unwritten + ROOM_STEP_BYTES, `the rest of ${this.fileName}`);
        covered = passed + ROOM_STEP_BYTES;
      }
      yield chunk;
    }
  }
}
