import { expect, test } from 'vitest';
import {
  csvField,
  MANIFEST_HEADER,
  manifestLine,
  manifestRow,
  targetVoice,
} from '../../src/status/manifest.js';
import { statusRecord } from '../helpers/journal.js';

test('quotes a field only when RFC 4180 needs it, doubling quotes', () => {
  expect(csvField('/in/a.wav')).toBe('/in/a.wav');
  expect(csvField('a,b')).toBe('"a,b"');
  expect(csvField('say "hi"')).toBe('"say ""hi"""');
  expect(csvField('two\nlines')).toBe('"two\nlines"');
  expect(csvField('cr\r')).toBe('"cr\r"');
  expect(csvField('')).toBe('');
});

test('the header names the columns, records end with CRLF', () => {
  expect(MANIFEST_HEADER).toBe(
    'input_path,input_sha256,output_path,output_sha256,job_id,target_voice,done_at\r\n',
  );
});

test('the target voice lists the fields sent in a fixed order, separators in values escaped', () => {
  expect(targetVoice(undefined)).toBe('');
  expect(targetVoice({ gender: 'f', age: 'senior-adult' })).toBe('age=senior-adult;gender=f');
  expect(targetVoice({ avatar: 'a=b;c%d', model_id: 'mini' })).toBe('model_id=mini;avatar=a%3Db%3Bc%25d');
});

test('a row of a done file, its output absolute; a row of an older journal has empty hashes', () => {
  const done = statusRecord({
    at: '2026-11-21T02:00:01.000Z',
    event: 'done',
    input: '/in/a, "b".wav',
    output: 'x/a.wav',
    jobId: 'j1',
    inputSha256: 'aa',
    outputSha256: 'bb',
    voice: { gender: 'm' },
  });
  const row = manifestRow('/out', done);
  expect(manifestLine(row)).toBe(
    '"/in/a, ""b"".wav",aa,/out/x/a.wav,bb,j1,gender=m,2026-11-21T02:00:01.000Z\r\n',
  );
  const old = statusRecord({
    at: '2026-11-21T02:00:01.000Z',
    event: 'done',
    input: '/in/c.wav',
    output: 'c.wav',
  });
  expect(manifestLine(manifestRow('/out', old))).toBe(
    '/in/c.wav,,/out/c.wav,,,,2026-11-21T02:00:01.000Z\r\n',
  );
});

test('a transform applies to every field before quoting', () => {
  const done = statusRecord({ at: 't', event: 'done', input: '/in/\u001b[2J.wav', output: 'a.wav' });
  expect(manifestLine(manifestRow('/o', done), (field) => field.replace('\u001b', '\\x1b'))).toMatch(
    /^\/in\/\\x1b\[2J\.wav,/,
  );
});
