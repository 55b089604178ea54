import { describe, expect, it } from 'vitest';
import { ConnectionError, errorForStatus } from '../../src/api/errors.js';
import type { Engine } from '../../src/redact/engine.js';
import { JobConfirmation } from '../../src/redact/first-look.js';
import { ServiceHeard } from '../../src/redact/service-heard.js';
import type { CollectWork } from '../../src/redact/work.js';
import { type WrongServiceError, WrongServiceStreak } from '../../src/redact/wrong-service.js';

/** An engine whose service answers each job's look as `answer` says; it records the looks made. */
function engineAnswering(answer: (jobId: string) => Promise<void>) {
  const looks: string[] = [];
  const halts: WrongServiceError[] = [];
  const stop = new AbortController();
  let lookingNow = 0;
  let mostAtOnce = 0;
  const engine = {
    stop: stop.signal,
    abort: new AbortController().signal,
    wrongService: new WrongServiceStreak('127.0.0.1:8787', (error) => {
      halts.push(error);
      stop.abort(error);
    }),
    serviceHeard: new ServiceHeard(),
    request: <T>(run: () => Promise<T>) => run(),
    gate: { run: <T>(run: () => Promise<T>) => run() },
    client: {
      jobContent: async (jobId: string) => {
        looks.push(jobId);
        mostAtOnce = Math.max(mostAtOnce, ++lookingNow);
        try {
          await answer(jobId);
        } finally {
          lookingNow--;
        }
        return [];
      },
    },
  } as unknown as Engine;
  return { engine, looks, halts, mostAtOnce: () => mostAtOnce };
}

const job = (jobId: string) => ({ kind: 'collect', jobId, fresh: true }) as CollectWork;
const notFound = () => Promise.reject(errorForStatus(404, 'reading job x', 'Not Found'));

describe('the looks of a --no-wait run at its jobs', () => {
  it('looks one job at a time until one is confirmed, then no more', async () => {
    const { engine, looks, mostAtOnce } = engineAnswering(() => Promise.resolve());
    const confirmation = new JobConfirmation();
    const settled = await Promise.all(
      ['a', 'b', 'c', 'd'].map((id) => confirmation.confirm(engine, job(id))),
    );
    expect(looks).toEqual(['a']);
    expect(mostAtOnce()).toBe(1);
    expect(confirmation.confirmed).toBe(true);
    expect(settled.map((work) => work.notFoundAtFirstLook)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    await confirmation.confirm(engine, job('e'));
    expect(looks).toEqual(['a']);
  });

  it('a job not found counts toward the stop, is marked, and the next job is looked at; the third halts', async () => {
    const { engine, looks, halts } = engineAnswering(notFound);
    const confirmation = new JobConfirmation();
    const settled = await Promise.all(
      ['a', 'b', 'c', 'd'].map((id) => confirmation.confirm(engine, job(id))),
    );
    expect(looks).toEqual(['a', 'b', 'c']);
    expect(halts.map((error) => error.message)).toEqual([
      '3 uploads in a row were answered by something that is not the Voice Redaction Service (a job id whose job answered 404 Not Found from 127.0.0.1:8787): nothing more was sent',
    ]);
    expect(settled.map((work) => work.notFoundAtFirstLook !== undefined)).toEqual([true, true, true, false]);
    expect(confirmation.confirmed).toBe(false);
  });

  it('a look with no answer (the network) or an answer that is not a job (a 500) leaves the count', async () => {
    const failures = [new ConnectionError('reset', false), errorForStatus(500, 'reading job b', 'oops')];
    const { engine, looks } = engineAnswering(async (jobId) => {
      if (jobId === 'a') await notFound();
      const failure = failures.shift();
      if (failure) throw failure;
    });
    const confirmation = new JobConfirmation();
    expect((await confirmation.confirm(engine, job('a'))).notFoundAtFirstLook).toMatch(/404 Not Found/);
    expect(engine.wrongService.count).toBe(1);
    for (const id of ['b', 'c']) {
      expect((await confirmation.confirm(engine, job(id))).notFoundAtFirstLook).toBeUndefined();
      expect(engine.wrongService.count).toBe(1);
      expect(confirmation.confirmed).toBe(false);
    }
    await confirmation.confirm(engine, job('d'));
    expect(engine.wrongService.count).toBe(0);
    expect(confirmation.confirmed).toBe(true);
    await confirmation.confirm(engine, job('e'));
    expect(looks).toEqual(['a', 'b', 'c', 'd']);
  });

  it('stops looking after 3 looks that told nothing, so a failing look does not hold every upload', async () => {
    const { engine, looks } = engineAnswering(() =>
      Promise.reject(errorForStatus(503, 'reading job x', 'busy')),
    );
    const confirmation = new JobConfirmation();
    const settled = await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map((id) => confirmation.confirm(engine, job(id))),
    );
    expect(looks).toEqual(['a', 'b', 'c']);
    expect(settled.every((work) => work.notFoundAtFirstLook === undefined)).toBe(true);
    expect(confirmation.confirmed).toBe(false);
    await confirmation.confirm(engine, job('f'));
    expect(looks).toEqual(['a', 'b', 'c']);
  });
});
