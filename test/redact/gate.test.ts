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
  it('lets every request through at once while the token is not refused', async () => {
    const gate = new TokenGate();
    const started: string[] = [];
    const a = deferred<string>(started, 'a');
    const b = deferred<string>(started, 'b');
    const runs = [gate.run(a.request), gate.run(b.request)];
    await settle();
    expect(started).toEqual(['a', 'b']);
    b.resolve('B');
    a.resolve('A');
    expect(await Promise.all(runs)).toEqual(['A', 'B']);
    expect(gate.refused).toBe(false);
  });

  it.each([
    ['401', errorForStatus(401, 'redacting a.wav', '')],
    ['403', errorForStatus(403, 'redacting a.wav', '')],
  ])(
    'a refused token (%s) is reported once, at once, and closes the gate: later requests are not sent',
    async (_status, refusal) => {
      const refusals: unknown[] = [];
      const gate = new TokenGate((error) => refusals.push(error));
      const started: string[] = [];
      const a = deferred<string>(started, 'a');
      const b = deferred<string>(started, 'b');
      const first = gate.run(a.request);
      const second = gate.run(b.request);
      a.reject(refusal);
      await expect(first).rejects.toBe(refusal);
      expect(refusals).toEqual([refusal]);
      expect(gate.refused).toBe(true);
      // One in flight with it is refused too: the error reaches its caller, the report stays one.
      b.reject(refusal);
      await expect(second).rejects.toBe(refusal);
      const later = await gate.run(async () => 'later').catch((error: unknown) => error);
      expect(later).toBeInstanceOf(GateClosedError);
      expect((later as GateClosedError).refusal).toBe(refusal);
      expect(started).toEqual(['a', 'b']);
      expect(refusals).toEqual([refusal]);
      expect(refusal instanceof AuthenticationError || refusal instanceof PermissionDeniedError).toBe(true);
    },
  );

  it('other failures say nothing of the token: the gate stays open and the error reaches its caller', async () => {
    const gate = new TokenGate();
    const tooLarge = errorForStatus(413, 'redacting big.wav', '');
    const network = new ConnectionError('cannot connect', true);
    await expect(gate.run(() => Promise.reject(tooLarge))).rejects.toBe(tooLarge);
    await expect(gate.run(() => Promise.reject(network))).rejects.toBe(network);
    expect(gate.refused).toBe(false);
    expect(await gate.run(async () => 'ok')).toBe('ok');
  });

  it('a request whose signal is already aborted is not sent', async () => {
    const gate = new TokenGate();
    const started: string[] = [];
    const controller = new AbortController();
    controller.abort();
    const run = gate.run(async () => {
      started.push('b');
      return 'b';
    }, controller.signal);
    await expect(run).rejects.toThrow();
    expect(started).toEqual([]);
  });
});
