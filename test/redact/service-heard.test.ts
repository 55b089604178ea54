import { describe, expect, it } from 'vitest';
import { ConnectionError, errorForStatus } from '../../src/api/errors.js';
import { NotAListError } from '../../src/api/json-reader.js';
import type { Engine } from '../../src/redact/engine.js';
import { createHalt } from '../../src/redact/halt.js';
import {
  LISTING_LOOKS_MAX,
  LOOK_AGAIN_MS,
  lookAgainMs,
  ServiceHeard,
} from '../../src/redact/service-heard.js';
import { WrongServiceError } from '../../src/redact/wrong-service.js';
import { steppingClock } from '../helpers/stepping-clock.js';

/** An engine whose job listing is answered by `listing`; it counts the listings asked for. */
function engineListing(listing: () => Promise<void>, listed = false) {
  const halt = createHalt();
  let listings = 0;
  const clock = steppingClock(Date.parse('2026-11-29T03:00:00Z'));
  const engine = {
    clock,
    stop: halt.signal,
    abort: new AbortController().signal,
    halt,
    acceptedJobs: { listed },
    wrongService: { where: '127.0.0.1:8787' },
    request: <T>(run: () => Promise<T>) => run(),
    gate: { run: <T>(run: () => Promise<T>) => run() },
    client: {
      eachJob: async <S>(makeSink: () => S) => {
        listings++;
        await listing();
        return makeSink();
      },
    },
  } as unknown as Engine;
  return { engine, halt, clock, listings: () => listings };
}

const askedAtOnce = (heard: ServiceHeard, engine: Engine) =>
  Promise.all([1, 2, 3, 4].map(() => heard.mayBeGone(engine)));

describe('whether a 404 of an earlier run’s job may mean it is gone', () => {
  it('may, with no listing, once the service has been heard (a job content, a result)', async () => {
    const { engine, listings } = engineListing(() => Promise.reject(new Error('not asked')));
    const heard = new ServiceHeard();
    heard.hear();
    expect(await heard.mayBeGone(engine)).toEqual({ kind: 'gone' });
    expect(listings()).toBe(0);
  });

  it('may, with no listing, once a look for accepted uploads has listed the jobs', async () => {
    const { engine, listings } = engineListing(() => Promise.reject(new Error('not asked')), true);
    expect(await new ServiceHeard().mayBeGone(engine)).toEqual({ kind: 'gone' });
    expect(listings()).toBe(0);
  });

  it('may once the run’s one listing parses: one look for every job asking at once', async () => {
    const { engine, halt, listings } = engineListing(() => Promise.resolve());
    const heard = new ServiceHeard();
    expect(await askedAtOnce(heard, engine)).toEqual(Array(4).fill({ kind: 'gone' }));
    expect(await heard.mayBeGone(engine)).toEqual({ kind: 'gone' });
    expect(listings()).toBe(1);
    expect(heard.heard).toBe(true);
    expect(halt.reason).toBeUndefined();
  });

  it.each([
    ['a 404', errorForStatus(404, 'listing jobs', 'Not Found'), '404 Not Found'],
    ['no list', new NotAListError('listing jobs: no list', 200), 'an answer that is no list of jobs'],
  ])(
    'may not when the listing is not the service’s (%s): the batch stops, once',
    async (_n, error, words) => {
      const { engine, halt, listings } = engineListing(() => Promise.reject(error));
      const heard = new ServiceHeard();
      expect(await askedAtOnce(heard, engine)).toEqual(Array(4).fill({ kind: 'not-service' }));
      expect(listings()).toBe(1);
      expect(heard.heard).toBe(false);
      expect(halt.reason).toBeInstanceOf(WrongServiceError);
      expect((halt.reason as Error).message).toBe(
        `jobs of earlier runs were answered 404 Not Found by something that is not the Voice Redaction Service (its job listing: ${words}, from 127.0.0.1:8787): nothing was sent again, and the next run looks at those jobs again`,
      );
    },
  );

  it.each([
    ['a 503', errorForStatus(503, 'listing jobs', 'busy')],
    ['the network', new ConnectionError('listing jobs: connection reset', false)],
  ])('may not when the listing says nothing (%s): untold, and the batch goes on', async (_n, error) => {
    const { engine, halt, listings } = engineListing(() => Promise.reject(error));
    const heard = new ServiceHeard();
    const verdicts = await askedAtOnce(heard, engine);
    expect(verdicts.map((verdict) => verdict.kind)).toEqual(Array(4).fill('untold'));
    expect(verdicts[0]).toMatchObject({ why: error.message });
    expect(await heard.mayBeGone(engine)).toMatchObject({ kind: 'untold' });
    expect(listings()).toBe(1);
    expect(halt.reason).toBeUndefined();
  });

  it('may not, and lists nothing, when the batch is stopping', async () => {
    const { engine, halt, listings } = engineListing(() => Promise.resolve());
    halt.stop(new Error('disk full'));
    expect(await new ServiceHeard().mayBeGone(engine)).toMatchObject({ kind: 'untold' });
    expect(listings()).toBe(0);
  });

  it('may after all when a later job asks past the wait and the listing answers then: a second look', async () => {
    let failing = true;
    const { engine, clock, listings } = engineListing(() =>
      failing ? Promise.reject(errorForStatus(503, 'listing jobs', 'busy')) : Promise.resolve(),
    );
    const heard = new ServiceHeard();
    expect(await heard.mayBeGone(engine)).toMatchObject({ kind: 'untold' });
    failing = false;
    await clock.sleep(LOOK_AGAIN_MS - 1);
    expect(await heard.mayBeGone(engine)).toMatchObject({ kind: 'untold' });
    expect(listings()).toBe(1);
    await clock.sleep(1);
    expect(await askedAtOnce(heard, engine)).toEqual(Array(4).fill({ kind: 'gone' }));
    expect(listings()).toBe(2);
    expect(heard.heard).toBe(true);
  });

  it(`looks at most ${LISTING_LOOKS_MAX} times in a run while the listing keeps failing`, async () => {
    const { engine, clock, listings } = engineListing(() =>
      Promise.reject(new ConnectionError('listing jobs: connection reset', false)),
    );
    const heard = new ServiceHeard();
    for (let i = 0; i < LISTING_LOOKS_MAX + 3; i++) {
      expect(await heard.mayBeGone(engine)).toMatchObject({ kind: 'untold' });
      await clock.sleep(LOOK_AGAIN_MS);
    }
    expect(listings()).toBe(LISTING_LOOKS_MAX);
  });

  it('tells a listing answered in HTTP (a 503) from one with no answer at all', async () => {
    const busy = engineListing(() => Promise.reject(errorForStatus(503, 'listing jobs', 'busy')));
    expect(await new ServiceHeard().look(busy.engine)).toMatchObject({ kind: 'untold', answered: true });
    const reset = engineListing(() =>
      Promise.reject(new ConnectionError('listing jobs: connection reset', false)),
    );
    expect(await new ServiceHeard().look(reset.engine)).toMatchObject({ kind: 'untold', answered: false });
  });

  it('does not look again once the listing was found not to be the service’s', async () => {
    const { engine, clock, listings } = engineListing(() =>
      Promise.reject(errorForStatus(404, 'listing jobs', 'Not Found')),
    );
    const heard = new ServiceHeard();
    expect(await heard.look(engine)).toEqual({ kind: 'not-service', answer: '404 Not Found' });
    await clock.sleep(LOOK_AGAIN_MS);
    expect(await heard.look(engine)).toEqual({ kind: 'not-service', answer: '404 Not Found' });
    expect(listings()).toBe(1);
  });

  it('takes a test’s shorter wait between looks only from its own variable, and only shorter', () => {
    expect(lookAgainMs({})).toBe(LOOK_AGAIN_MS);
    expect(lookAgainMs({ VREDACT_TEST_LOOK_AGAIN_MS: '1000' })).toBe(1000);
    expect(lookAgainMs({ VREDACT_TEST_LOOK_AGAIN_MS: '3600000' })).toBe(LOOK_AGAIN_MS);
    expect(lookAgainMs({ VREDACT_TEST_LOOK_AGAIN_MS: 'soon' })).toBe(LOOK_AGAIN_MS);
  });
});
