import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { NotSentError } from '../../src/api/errors.js';
import { requestTurns } from '../../src/redact/request-turns.js';

/** A request the test finishes by hand, noting when it started. */
function held(started: string[], name: string) {
  let finish!: (value: string) => void;
  const answer = new Promise<string>((resolve) => {
    finish = resolve;
  });
  const run = () => {
    started.push(name);
    return answer;
  };
  return { run, finish: () => finish(name) };
}

/** Lets every pending promise callback run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('requestTurns', () => {
  it('runs at most `max` requests at once, the next when one ends', async () => {
    const stop = new AbortController();
    const turns = await requestTurns(2, stop.signal);
    const started: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((name) => held(started, name));
    const answers = [a, b, c].map((request) => turns(request!.run));
    await settle();
    expect(started).toEqual(['a', 'b']);
    a!.finish();
    await settle();
    expect(started).toEqual(['a', 'b', 'c']);
    b!.finish();
    c!.finish();
    expect(await Promise.all(answers)).toEqual(['a', 'b', 'c']);
  });

  it('gives up at a stop the requests still waiting for their turn, unsent; those under way finish', async () => {
    const stop = new AbortController();
    const turns = await requestTurns(2, stop.signal);
    const started: string[] = [];
    const requests = ['a', 'b', 'c', 'd'].map((name) => held(started, name));
    const answers = requests.map((request) => turns(request.run).then(String, (error: unknown) => error));
    await settle();
    stop.abort(new Error('interrupted'));
    await settle();
    // Given up at once, before any turn is free.
    expect(await answers[2]).toBeInstanceOf(NotSentError);
    expect(await answers[3]).toBeInstanceOf(NotSentError);
    requests[0]!.finish();
    requests[1]!.finish();
    expect(await answers[0]).toBe('a');
    expect(await answers[1]).toBe('b');
    await settle();
    expect(started).toEqual(['a', 'b']);
  });

  it('sends nothing asked for after a stop, and frees the turns of the requests given up', async () => {
    const stop = new AbortController();
    const turns = await requestTurns(1, stop.signal);
    const started: string[] = [];
    const first = held(started, 'first');
    const answer = turns(first.run);
    const queued = turns(held(started, 'queued').run).catch((error: unknown) => error);
    await settle();
    stop.abort();
    expect(await queued).toBeInstanceOf(NotSentError);
    await expect(turns(held(started, 'late').run)).rejects.toBeInstanceOf(NotSentError);
    first.finish();
    expect(await answer).toBe('first');
    await settle();
    expect(started).toEqual(['first']);
  });

  it('keeps one listener on the stop signal however many requests wait, and gives them all up at a stop', async () => {
    const stop = new AbortController();
    const turns = await requestTurns(1, stop.signal);
    const listenersBefore = getEventListeners(stop.signal, 'abort').length;
    const started: string[] = [];
    const first = held(started, 'first');
    const answer = turns(first.run);
    const waiting = Array.from({ length: 1_000 }, (_, n) =>
      turns(held(started, `w${n}`).run).catch((error: unknown) => error),
    );
    await settle();
    // One each would make every new request walk them all, and the runtime warn past ten.
    expect(getEventListeners(stop.signal, 'abort').length).toBe(listenersBefore);
    stop.abort();
    for (const given of await Promise.all(waiting)) expect(given).toBeInstanceOf(NotSentError);
    first.finish();
    expect(await answer).toBe('first');
    await settle();
    expect(started).toEqual(['first']);
  });

  it('does not send a request whose turn comes free in the same tick as the stop', async () => {
    const stop = new AbortController();
    const turns = await requestTurns(1, stop.signal);
    const started: string[] = [];
    const first = held(started, 'first');
    const answer = turns(first.run);
    const next = turns(held(started, 'next').run).catch((error: unknown) => error);
    await settle();
    first.finish();
    stop.abort();
    expect(await answer).toBe('first');
    expect(await next).toBeInstanceOf(NotSentError);
    await settle();
    expect(started).toEqual(['first']);
  });
});
