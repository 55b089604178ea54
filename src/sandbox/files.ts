/**
 * The file listener behind signed URLs, shaped like an object store: XML error bodies, and any
 * request that carries an Authorization header refused (400), as S3 does for a presigned URL.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { answerWithFault, type FaultInjector } from './faults.js';
import { discardBody, pathOf, sendText } from './http.js';
import type { Recorder } from './recorder.js';
import type { UrlSigner } from './signing.js';
import type { JobStore } from './store.js';

export interface FilesDeps {
  store: JobStore;
  signer: UrlSigner;
  recorder: Recorder;
  faults: FaultInjector;
}

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** An object store's error body: `<Error><Code>…</Code><Message>…</Message></Error>`. */
export function xmlErrorBody(code: string, message: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${escapeXml(code)}</Code><Message>${escapeXml(message)}</Message></Error>\n`
  );
}

function sendXmlError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendText(res, status, 'application/xml', xmlErrorBody(code, message), headers);
}

export async function handleFiles(req: IncomingMessage, res: ServerResponse, deps: FilesDeps): Promise<void> {
  if (req.headers.authorization !== undefined) {
    deps.recorder.stats.filesAuthorizationRefused++;
    discardBody(req);
    return sendXmlError(
      res,
      400,
      'InvalidArgument',
      'Only one auth mechanism allowed: a signed URL must be fetched without an Authorization header.',
    );
  }
  const fault = deps.faults.take('files', pathOf(req));
  if (fault) {
    deps.recorder.stats.faultsInjected++;
    discardBody(req);
    return answerWithFault(res, fault);
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    discardBody(req);
    return sendXmlError(res, 405, 'MethodNotAllowed', 'The specified method is not allowed.', {
      allow: 'GET, HEAD',
    });
  }
  const verified = deps.signer.verify(req.url ?? '/');
  if (!verified.ok) return sendXmlError(res, verified.status, verified.code, verified.message);

  const job = deps.store.get(verified.jobId);
  const file = job && deps.store.visibleFiles(job, Date.now()).find((f) => f.file_name === verified.fileName);
  const size =
    job && file
      ? await stat(deps.store.diskPath(job, file)).then(
          (s) => s.size,
          () => undefined,
        )
      : undefined;
  if (!job || !file || size === undefined) {
    return sendXmlError(res, 404, 'NoSuchKey', 'The specified key does not exist.');
  }
  res.writeHead(200, {
    'content-type': file.contentType,
    'content-length': size,
    'cache-control': 'private, no-store',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  await pipeline(createReadStream(deps.store.diskPath(job, file)), res).catch(() => {});
}
