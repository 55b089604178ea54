/**
 * A scripted service (scripted-server.ts) that holds every upload's answer until `release()`: the
 * uploads in flight at an interrupt, a pause or a hangup are known (those that came), and each is
 * answered with the speech fixture once released.
 */
import { sendJson, startScriptedServer, type ScriptedServer } from './scripted-server.js';
import { answerWithSpeech } from './speech-files.js';

export const REDACTION = '/api/speech-to-speech-biometric-redaction';

export interface HoldingService {
  server: ScriptedServer;
  /** The names the uploads carried (`call-0.<8 hex>.wav`), in arrival order. */
  uploadNames: string[];
  /** Answers every upload held, and every later one at once. */
  release: () => void;
}

export async function holdingService(): Promise<HoldingService> {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const uploadNames: string[] = [];
  const server = await startScriptedServer(async (req, res, body) => {
    if (req.url !== REDACTION) return sendJson(res, 404, { error: 404, message: 'not found' });
    uploadNames.push(/filename="([^"]*)"/.exec(body.subarray(0, 4096).toString('latin1'))?.[1] ?? '');
    await released;
    return answerWithSpeech(res);
  });
  return { server, uploadNames, release };
}

/** How many uploads the service has taken in (answered or held). */
export function uploads(server: ScriptedServer): number {
  return server.received.filter((request) => request.url === REDACTION).length;
}
