import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ConnectionError,
  errorForStatus,
  PermissionDeniedError,
} from '../../src/api/errors.js';
import { GateClosedError, TokenGate } from '../../src/redact/gate.js';

/** A request the test finishes by hand, noting when it started. */
function deferred<T>(started: string[], name: string) {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const request = () => {
    started.push(name);
    return promise;
  };
  return { request, resolve, reject };
}

/** Lets every pending promise callback run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('TokenGate', () => {
  it('lets one request through until an answer comes back, then all at once', async () => {
    const gate = new TokenGate();
    const started: string[] = [];
    const a = deferred<string>(started, 'a');
    const b = deferred<string>(started, 'b');
    const c = deferred<string>(started, 'c');
    const runs = [gate.run(a.request), gate.run(b.request), gate.run(c.request)];
    await settle();
    expect(started).toEqual(['a']);
    expect(gate.isOpen).toBe(false);

    a.resolve('A');
    await settle();
    expect(gate.isOpen).toBe(true);
    expect(started).toEqual(['a', 'b', 'c']);
    b.resolve('B');
    c.resolve('C');
    expect(await Promise.all(runs)).toEqual(['A', 'B', 'C']);
    const d = deferred<string>(started, 'd');
    const e = deferred<string>(started, 'e');
    const more = [gate.run(d.request), gate.run(e.request)];
    expect(started).toEqual(['a', 'b', 'c', 'd', 'e']);
    d.resolve('D');
    e.resolve('E');
    expect(await Promise.all(more)).toEqual(['D', 'E']);
  });

  it.each([
    ['401', errorForStatus(401, 'redacting a.wav', '')],
    ['403', errorForStatus(403, 'redacting a.wav', '')],
  ])(
    'a refused token (%s) costs one request: the waiting ones fail with GateClosedError, unsent',
    async (_status, refusal) => {
      const refusals: unknown[] = [];
      const gate = new TokenGate((error) => refusals.push(error));
      const started: string[] = [];
      const a = deferred<string>(started, 'a');
      const first = gate.run(a.request);
      const rest = [gate.run(async () => 'b'), gate.run(async () => 'c')].map((run) =>
        run.catch((error: unknown) => error),
      );
      a.reject(refusal);
      await expect(first).rejects.toBe(refusal);
      for (const failure of await Promise.all(rest)) {
        expect(failure).toBeInstanceOf(GateClosedError);
        expect((failure as GateClosedError).refusal).toBe(refusal);
      }
      expect(started).toEqual(['a']);
      expect(refusals).toEqual([refusal]);
      expect(refusal instanceof AuthenticationError || refusal instanceof PermissionDeniedError).toBe(true);
      await expect(gate.run(async () => 'later')).rejects.toBeInstanceOf(GateClosedError);
    },
  );

  it('an answer with another status opens the gate (the token was accepted); the error still reaches its caller', async () => {
    const gate = new TokenGate();
    const tooLarge = errorForStatus(413, 'redacting big.wav', '');
    await expect(gate.run(() => Promise.reject(tooLarge))).rejects.toBe(tooLarge);
    expect(gate.isOpen).toBe(true);
  });

  it('a network failure says nothing of the token: the next request is the next pilot', async () => {
    const gate = new TokenGate();
    const started: string[] = [];
    const network = new ConnectionError('cannot connect', true);
    const a = deferred<string>(started, 'a');
    const b = deferred<string>(started, 'b');
    const first = gate.run(a.request).catch((error: unknown) => error);
    const second = gate.run(b.request);
    const third = gate.run(async () => 'c');
    a.reject(network);
    expect(await first).toBe(network);
    await settle();
    expect(gate.isOpen).toBe(false);
    expect(started).toEqual(['a', 'b']);
    b.resolve('B');
    expect(await second).toBe('B');
    expect(await third).toBe('c');
    expect(gate.isOpen).toBe(true);
  });

  it('a refusal after the gate opened still closes it and is reported once', async () => {
    const refusals: unknown[] = [];
    const gate = new TokenGate((error) => refusals.push(error));
    await gate.run(async () => 'ok');
    const refusal = errorForStatus(401, 'listing', '');
    await expect(gate.run(() => Promise.reject(refusal))).rejects.toBe(refusal);
    await expect(gate.run(() => Promise.reject(refusal))).rejects.toBeInstanceOf(GateClosedError);
    expect(refusals).toEqual([refusal]);
  });

  it('a waiting request whose signal is aborted is not sent', async () => {
    const gate = new TokenGate();
    const started: string[] = [];
    const a = deferred<string>(started, 'a');
    const first = gate.run(a.request);
    const controller = new AbortController();
    const second = gate.run(async () => {
      started.push('b');
      return 'b';
    }, controller.signal);
    controller.abort();
    a.resolve('A');
    expect(await first).toBe('A');
    await expect(second).rejects.toThrow();
    expect(started).toEqual(['a']);
  });
});
