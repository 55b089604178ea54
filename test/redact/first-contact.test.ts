import { describe, expect, it } from 'vitest';
import {
  ConnectionError,
  DroppedBeforeHeardError,
  errorForStatus,
  ServiceUnreachableError,
  TimeoutError,
} from '../../src/api/errors.js';
import type { Engine } from '../../src/redact/engine.js';
import { FirstContact } from '../../src/redact/first-contact.js';
import { createHalt } from '../../src/redact/halt.js';
import { ServiceHeard } from '../../src/redact/service-heard.js';
import { WrongServiceError } from '../../src/redact/wrong-service.js';
import { steppingClock } from '../helpers/stepping-clock.js';

/** An engine whose job listing is answered by `listing` once `answer()` is called; it counts listings. */
function engineListing(listing: () => Promise<void>) {
  const halt = createHalt();
  let listings = 0;
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  const engine = {
    clock: steppingClock(Date.parse('2026-11-29T03:00:00Z')),
    log: { debug() {} },
    stop: halt.signal,
    abort: new AbortController().signal,
    halt,
    acceptedJobs: { listed: false },
    wrongService: { where: '127.0.0.1:8787' },
    serviceHeard: new ServiceHeard(),
    request: <T>(run: () => Promise<T>) => run(),
    gate: { run: <T>(run: () => Promise<T>) => run() },
    client: {
      eachJob: async <S>(makeSink: () => S) => {
        listings++;
        await answered;
        await listing();
        return makeSink();
      },
    },
  } as unknown as Engine;
  return { engine, halt, answer, listings: () => listings };
}

function dropped(file: string): DroppedBeforeHeardError {
  const drop = new ConnectionError(`redacting ${file}: the connection was reset`, false);
  return new DroppedBeforeHeardError(
    `${drop.message}; nothing at the base URL has answered in HTTP this run`,
    'check the service URL and its port',
    drop,
  );
}

const drops = (count: number) => Array.from({ length: count }, (_, i) => dropped(`call-${i}.wav`));

describe('a run’s first dropped upload, before anything answered in HTTP', () => {
  it('is each file’s own drop once the one look finds the service: 32 drops at once, one listing', async () => {
    const { engine, halt, answer, listings } = engineListing(() => Promise.resolve());
    const first = new FirstContact();
    const errors = drops(32);
    const judged = Promise.all(errors.map((error) => first.judge(engine, error)));
    let uploadWaited = false;
    const upload = first.settled().then(() => (uploadWaited = true));
    await Promise.resolve();
    expect(uploadWaited).toBe(false);
    answer();
    expect(await judged).toEqual(errors.map((error) => error.dropped));
    await upload;
    expect(listings()).toBe(1);
    expect(halt.reason).toBeUndefined();
    expect(engine.serviceHeard.heard).toBe(true);
    expect(await first.judge(engine, dropped('late.wav'))).toBeInstanceOf(ConnectionError);
    expect(listings()).toBe(1);
  });

  it('is each file’s own drop when the listing is answered in HTTP, even with a 503', async () => {
    const { engine, answer, halt } = engineListing(() =>
      Promise.reject(errorForStatus(503, 'listing jobs', 'busy')),
    );
    answer();
    const error = dropped('a.wav');
    expect(await new FirstContact().judge(engine, error)).toBe(error.dropped);
    expect(halt.reason).toBeUndefined();
  });

  it('stays the whole batch’s, as it was, when the listing gets no HTTP answer either', async () => {
    const { engine, answer, listings } = engineListing(() =>
      Promise.reject(new ConnectionError('listing jobs: the connection was reset', false)),
    );
    answer();
    const first = new FirstContact();
    const errors = drops(4);
    const judged = await Promise.all(errors.map((error) => first.judge(engine, error)));
    expect(judged).toEqual(errors);
    expect(judged[0]).toBeInstanceOf(ServiceUnreachableError);
    expect(listings()).toBe(1);
  });

  it('stops the batch as a wrong service when the listing points at the setup', async () => {
    const { engine, answer, halt } = engineListing(() =>
      Promise.reject(errorForStatus(404, 'listing jobs', 'Not Found')),
    );
    answer();
    const error = dropped('a.wav');
    expect(await new FirstContact().judge(engine, error)).toBe(error.dropped);
    expect(halt.reason).toBeInstanceOf(WrongServiceError);
    expect((halt.reason as Error).message).toBe(
      "an upload's connection was closed with no answer by something that is not the Voice Redaction Service (its job listing: 404 Not Found, from 127.0.0.1:8787): nothing more was sent",
    );
  });

  it('leaves every other failure as it is, with no look: a timeout, a refused connection', async () => {
    const { engine, answer, listings } = engineListing(() => Promise.resolve());
    answer();
    const first = new FirstContact();
    for (const error of [
      new ServiceUnreachableError('redacting a.wav: did not answer in time; nothing …', undefined, false),
      new TimeoutError('redacting a.wav: did not answer in time'),
      new ConnectionError('redacting a.wav: connection reset', false),
    ])
      expect(await first.judge(engine, error)).toBe(error);
    expect(listings()).toBe(0);
  });
});
