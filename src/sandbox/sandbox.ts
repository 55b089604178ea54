/** `startSandbox`: the API and file listeners, wired to one job store. */
import { mkdtemp, rm } from 'node:fs/promises';
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Duplex } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { handleApi } from './api.js';
import { generateToken } from './auth.js';
import { answerClientErrors } from './client-error.js';
import { CONTROL_PREFIX, handleControl, type RuntimeSettings } from './control.js';
import { FaultInjector } from './faults.js';
import { RateLimiter } from './rate-limit.js';
import { handleFiles, xmlErrorBody } from './files.js';
import { errorBody, pathOf, sendError } from './http.js';
import { bindAddress, resolveOptions, type SandboxOptions, urlHost } from './options.js';
import { Processor } from './processor.js';
import { type Listener, Recorder } from './recorder.js';
import { type DataLock, lockDataDir } from './data-lock.js';
import { UrlSigner } from './signing.js';
import { keptToken } from './kept-token.js';
import { JobStore } from './store.js';
import { makeFolder } from '../fs/make-folder.js';
import { PRIVATE_DIR_MODE } from '../fs/private-dir.js';

export interface Sandbox {
  /** URL of the API, e.g. `http://127.0.0.1:8787`. */
  baseUrl: string;
  /** Origin of the file listener that signed URLs point at. */
  filesUrl: string;
  /** Accepted tokens; the first is the one to print. */
  tokens: string[];
  /** Where jobs and files are kept (a temporary folder unless --data-dir was given). */
  dataDir: string;
  /**
   * Aborted, with a DataDirTakenOverError, once another sandbox has taken the data folder over (never
   * for a temporary folder): the sandbox has stopped serving then, and is closing.
   */
  lost: AbortSignal;
  /** Stops both listeners, cuts open connections, and removes the temporary folder if any. */
  close(): Promise<void>;
}

/** How long close() waits for background redactions in progress. */
const CLOSE_WAIT_MS = 2_000;

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen({ port, host }, () => {
      server.off('error', onError);
      const address = server.address();
      resolvePort(typeof address === 'object' && address ? address.port : port);
    });
  });
}

/** Waits for `promises` to settle, or `ms`, whichever comes first. */
async function settleWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  if (promises.length === 0) return;
  const timer = new AbortController();
  await Promise.race([
    Promise.allSettled(promises),
    delay(ms, undefined, { signal: timer.signal }).catch(() => {}),
  ]);
  timer.abort();
}

function stop(server: Server): Promise<void> {
  return new Promise((done) => {
    if (!server.listening) return done();
    server.close(() => done());
    server.closeAllConnections();
  });
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const o = resolveOptions(options, generateToken);
  const ownsDir = o.dataDir === undefined;
  // A temporary folder is not made through makeFolder: it needs a fresh name (mkdtemp, mode 0700), and
  // nothing in it is to outlive the process, so its entry need not be flushed into its parent.
  const root =
    o.dataDir === undefined ? await mkdtemp(join(tmpdir(), 'vredact-sandbox-')) : resolve(o.dataDir);
  const apiServer = createServer();
  const filesServer = createServer();
  let processor: Processor | undefined;
  let store: JobStore | undefined;
  let lock: DataLock | undefined;
  let closing: Promise<void> | undefined;
  const handlers = new Set<Promise<unknown>>();
  // The answer under way on each connection: a request the parser refuses after it gets no answer.
  const answering = new WeakMap<Duplex, ServerResponse>();

  const close = () => {
    closing ??= (async () => {
      await Promise.all([stop(apiServer), stop(filesServer)]);
      // Requests cut short still finish their work (a synchronous redaction in a worker, say).
      await settleWithin([...handlers], CLOSE_WAIT_MS);
      await processor?.close(CLOSE_WAIT_MS);
      await store?.close();
      await lock?.release();
      if (ownsDir) await rm(root, { recursive: true, force: true });
    })();
    return closing;
  };

  try {
    // Recordings and a token are kept there: private as a temporary one is, and flushed into its parent.
    await makeFolder(root, PRIVATE_DIR_MODE);
    // Before the store opens: it empties tmp/, where another sandbox's uploads may be under way.
    if (!ownsDir) {
      const held = await lockDataDir(root, o.onWarning, {
        ...(o.lockRefreshMs === undefined ? {} : { refreshMs: o.lockRefreshMs }),
      });
      lock = held;
      // The folder is the other sandbox's now: nothing more is served or written here.
      held.lost.addEventListener(
        'abort',
        () => {
          processor?.stop();
          void close().catch(() => {});
        },
        { once: true },
      );
    }
    const tokens =
      ownsDir || (options.tokens?.length ?? 0) > 0
        ? o.tokens
        : [await keptToken(root, o.tokens[0] as string)];
    store = await JobStore.open(root, o.onWarning, lock?.confirm);
    const recorder = new Recorder();
    const faults = new FaultInjector(o.failRate, o.seed);
    processor = new Processor(store, recorder, { debug: o.onDebug, warn: o.onWarning });
    const address = bindAddress(o.host);

    const filesPort = await listen(filesServer, o.filesPort, address);
    const filesUrl = `http://${urlHost(address, filesPort)}`;
    const signer = new UrlSigner(filesUrl, o.signedUrlTtlSec);
    const apiPort = await listen(apiServer, o.port, address);
    const baseUrl = `http://${urlHost(address, apiPort)}`;

    const guard =
      (listener: Listener, handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>) =>
      (req: IncomingMessage, res: ServerResponse) => {
        const started = Date.now();
        answering.set(req.socket, res);
        const control = listener === 'api' && pathOf(req).startsWith(CONTROL_PREFIX);
        if (!control) recorder.track(listener, req, res);
        res.once('close', () => {
          if (answering.get(req.socket) === res) answering.delete(req.socket);
          const status = res.headersSent ? String(res.statusCode) : 'no answer';
          const line = `${req.method} ${pathOf(req)} ${status} ${Date.now() - started}ms`;
          if (control) o.onDebug(line);
          else o.onRequestLine(line);
        });
        const handling = handle(req, res)
          .catch((error: unknown) => {
            if (closing) return res.destroy();
            o.onWarning(`${req.method} ${pathOf(req)}: ${(error as Error).stack ?? error}`);
            if (!res.headersSent) sendError(res, 500, 'internal error of the sandbox');
            else res.destroy();
          })
          .finally(() => handlers.delete(handling));
        handlers.add(handling);
      };

    const runtime: RuntimeSettings = { holdAcceptedMs: 0 };
    const deps = {
      store,
      processor,
      recorder,
      faults,
      signer,
      tokens: new Set(tokens),
      latencyMs: o.latencyMs,
      rateLimiter: o.rateLimit ? new RateLimiter(o.rateLimit) : undefined,
      syncLimitSec: o.syncLimitSec,
      speed: o.speed,
      seed: o.seed,
      runtime,
      debug: o.onDebug,
    };
    const info = () => ({
      baseUrl,
      filesUrl,
      syncLimitSec: o.syncLimitSec,
      speed: o.speed,
      failRate: o.failRate,
      latencyMs: o.latencyMs,
      persistent: !ownsDir,
    });
    apiServer.on(
      'request',
      guard('api', (req, res) =>
        pathOf(req).startsWith(CONTROL_PREFIX)
          ? handleControl(req, res, { recorder, faults, store: deps.store, runtime, info })
          : handleApi(req, res, deps),
      ),
    );
    filesServer.on(
      'request',
      guard('files', (req, res) => handleFiles(req, res, deps)),
    );
    apiServer.on(
      'clientError',
      answerClientErrors(answering, (status, message) => ({
        contentType: 'application/json; charset=utf-8',
        text: JSON.stringify(errorBody(status, message)),
      })),
    );
    filesServer.on(
      'clientError',
      answerClientErrors(answering, (status, message) => ({
        contentType: 'application/xml',
        text: xmlErrorBody((STATUS_CODES[status] ?? 'Error').replace(/\W/g, ''), message),
      })),
    );

    const interrupted = store.interrupted();
    for (const job of interrupted) processor.enqueue(job);
    if (interrupted.length > 0) o.onDebug(`resuming ${interrupted.length} interrupted job(s)`);

    const lost = lock?.lost ?? new AbortController().signal;
    return { baseUrl, filesUrl, tokens, dataDir: root, lost, close };
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
}
