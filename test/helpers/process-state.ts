import { readdir, readFile } from 'node:fs/promises';

/**
 * A process's state from /proc: `T` once every thread has stopped (SIGSTOP), `''` once it is gone,
 * `R` otherwise. The main thread stops first, and a thread of libuv's pool can still be finishing a
 * write: a test that copies a file "while the process is stopped" waits for all of them.
 */
export async function processState(pid: number): Promise<'T' | 'R' | ''> {
  const threads = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  const states = await Promise.all(
    threads.map(async (tid) => {
      const text = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => '');
      return text.slice(text.lastIndexOf(')') + 2, text.lastIndexOf(')') + 3);
    }),
  );
  const alive = states.filter((state) => state !== '' && state !== 'Z' && state !== 'X');
  if (alive.length === 0) return '';
  return alive.every((state) => state === 'T' || state === 't') ? 'T' : 'R';
}
