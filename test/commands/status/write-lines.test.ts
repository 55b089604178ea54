import { PassThrough, Writable } from 'node:stream';
import { expect, test } from 'vitest';
import { lineWriter } from '../../../src/commands/status/write-lines.js';

test('gathers lines and writes them whole, in order, waiting for a full stream to drain', async () => {
  // A tiny buffer, read slowly: every chunk fills it.
  const stream = new PassThrough({ highWaterMark: 16 });
  let text = '';
  const reading = (async () => {
    for await (const chunk of stream) {
      text += String(chunk);
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  const out = lineWriter(stream);
  const lines = Array.from({ length: 5000 }, (_, i) => `line ${i}\n`);
  for (const line of lines) expect(await out.write(line)).toBe(true);
  expect(await out.flush()).toBe(true);
  stream.end();
  await reading;
  expect(text).toBe(lines.join(''));
});

test('a reader that went away (EPIPE) stops the writing quietly', async () => {
  let writes = 0;
  const stream = new Writable({
    highWaterMark: 16,
    write(_chunk, _encoding, callback) {
      writes++;
      callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    },
  });
  const out = lineWriter(stream);
  let accepted = 0;
  for (let i = 0; i < 100_000; i++) {
    if (!(await out.write('x'.repeat(100)))) break;
    accepted++;
  }
  expect(await out.flush()).toBe(false);
  expect(accepted).toBeLessThan(100_000);
  expect(writes).toBe(1);
});
