/** A journal as `vredact redact` writes it, for timing `vredact status`: each input uploading, then done. */
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';

/** Writes `<outDir>/.vredact/journal.jsonl` with two lines for each of `inputs` inputs (1 in 100 failed). */
export async function writeJournal(outDir, inputs) {
  await mkdir(join(outDir, '.vredact'), { recursive: true });
  const stream = createWriteStream(join(outDir, '.vredact', 'journal.jsonl'));
  const sha = 'ab'.repeat(32);
  const at = new Date('2026-11-21T02:00:00.000Z').getTime();
  let chunk = '';
  for (let i = 0; i < inputs; i++) {
    const name = `d${String(Math.floor(i / 1000)).padStart(4, '0')}/f${String(i).padStart(7, '0')}.wav`;
    const common = `"input":"/srv/archive/recordings/${name}","size":1644,"mtimeMs":1795238990423.27,"options":"4f53cda18c2baa0c","output":"${name}"`;
    chunk += `{"v":1,"at":"${new Date(at + i).toISOString()}","event":"uploading",${common},"uploadName":"f${i}-1a2b.wav","inputSha256":"${sha}"}\n`;
    chunk +=
      i % 100 === 99
        ? `{"v":1,"at":"${new Date(at + i + 1).toISOString()}","event":"failed",${common},"reason":"the service answered 500"}\n`
        : `{"v":1,"at":"${new Date(at + i + 1).toISOString()}","event":"done",${common},"via":"sync","bytes":1644,"inputSha256":"${sha}","outputSha256":"${sha}","voice":{"age":"senior-adult","gender":"f"}}\n`;
    if (chunk.length > 1 << 20) {
      if (!stream.write(chunk)) await once(stream, 'drain');
      chunk = '';
    }
  }
  stream.end(chunk);
  await once(stream, 'finish');
}
