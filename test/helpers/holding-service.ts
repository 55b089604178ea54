/** A scripted service whose redaction answers wait for the test: uploads stay in flight until `release()`. */
import { sendJson, startScriptedServer, type ScriptedServer } from './scripted-server.js';
import { answerWithSpeech } from './speech-files.js';

export const REDACTION_PATH = '/api/speech-to-speech-biometric-redaction';

export interface HoldingService {
  server: ScriptedServer;
  /** Lets every upload held so far, and every later one, have its answer. */
  release: () => void;
  /** The redaction uploads the service has received. */
  uploads: () => number;
}

/** A service that holds every upload's answer (a synchronous WAV) until `release()`. */
export async function startHoldingService(): Promise<HoldingService> {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const server = await startScriptedServer(async (req, res) => {
    if (req.url !== REDACTION_PATH) return sendJson(res, 404, { error: 404, message: 'not found' });
    await released;
    return answerWithSpeech(res);
  });
  const uploads = () => server.received.filter((request) => request.url === REDACTION_PATH).length;
  return { server, release, uploads };
}
