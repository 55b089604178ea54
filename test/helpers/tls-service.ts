/**
 * For each test of the calling file: the sandbox served over TLS as `service.test` (see
 * connect-proxy.ts), a CONNECT proxy that reaches it, and a temporary folder, all stopped after the
 * test. `env(extra)` is the environment of a run against `https://service.test:<port>`, with the
 * test certificate authority trusted; the test adds the proxy variables it means to try.
 */
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { isolatedEnv, tempDir } from './cli.js';
import {
  type ConnectProxy,
  startConnectProxy,
  startTlsFront,
  TEST_CA,
  type TlsFront,
} from './connect-proxy.js';
import { type SandboxProcess, startSandboxProcess } from './sandbox.js';

interface Running {
  sandbox: SandboxProcess;
  front: TlsFront;
  proxy: ConnectProxy;
  temp: Awaited<ReturnType<typeof tempDir>>;
}

export interface TlsService {
  readonly sandbox: SandboxProcess;
  readonly front: TlsFront;
  readonly proxy: ConnectProxy;
  /** The temporary folder: the runs' working folder. */
  readonly dir: string;
  env(extra: Record<string, string>, trusted?: boolean): NodeJS.ProcessEnv;
}

export function tlsServicePerTest(prefix: string): TlsService {
  let running: Running | undefined;
  beforeEach(async () => {
    const temp = await tempDir(prefix);
    const sandbox = await startSandboxProcess();
    const front = await startTlsFront(Number(new URL(sandbox.baseUrl).port));
    running = { temp, sandbox, front, proxy: await startConnectProxy(['service.test']) };
  });
  afterEach(async () => {
    if (!running) return;
    await running.proxy.close();
    await running.front.close();
    await running.sandbox.stop();
    await running.temp.cleanup();
    running = undefined;
  });
  const now = (): Running => {
    if (!running) throw new Error('tlsServicePerTest: use it inside a test');
    return running;
  };
  return {
    get sandbox() {
      return now().sandbox;
    },
    get front() {
      return now().front;
    },
    get proxy() {
      return now().proxy;
    },
    get dir() {
      return now().temp.path;
    },
    env(extra, trusted = true) {
      const { temp, front, sandbox } = now();
      return isolatedEnv(join(temp.path, 'cfg'), {
        VREDACT_BASE_URL: `https://service.test:${front.port}`,
        VREDACT_TOKEN: sandbox.token,
        ...(trusted ? { NODE_EXTRA_CA_CERTS: TEST_CA } : {}),
        ...extra,
      });
    },
  };
}
