import { describe, expect, test } from 'vitest';
import { InvalidResponseError } from '../../src/api/errors.js';
import { NumberLiteral, numberOf, parseExactJson } from '../../src/api/exact-json.js';

describe('numberOf: a number where it reads back as written, else its literal', () => {
  test.each(['0', '42', '9007199254740991', '-7', '10.5', '0.1', '1e-7'])('%s is a number', (text) => {
    expect(numberOf(text)).toBe(Number(text));
  });

  test.each(['9007199254740992', '12345678901234567891', '1e3', '1E+21', '10.50', '1.0', '-0', '1e400'])(
    '%s is kept as written',
    (text) => {
      expect(numberOf(text)).toEqual(new NumberLiteral(text));
    },
  );

  test('a kept literal is printed as the number it reads as', () => {
    expect(JSON.stringify({ a: numberOf('1.0') })).toBe('{"a":1}');
  });
});

describe('parseExactJson', () => {
  test('reads a document as JSON.parse does, numbers past 2^53 kept exact', async () => {
    const text = '{"id": 12345678901234567891, "a": [1, "x", null, true, {"b": 2.5}]}';
    expect(await parseExactJson(text, 'reading')).toEqual({
      id: new NumberLiteral('12345678901234567891'),
      a: [1, 'x', null, true, { b: 2.5 }],
    });
    expect(await parseExactJson(Buffer.from('"s"'), 'reading')).toBe('s');
  });

  test.each(['', ' ', '{', '{"a":1} x', '{"a":1}{"b":2}', 'nul', '<html>'])(
    '%j is not JSON: a SyntaxError',
    async (text) => {
      await expect(parseExactJson(text, 'reading')).rejects.toBeInstanceOf(SyntaxError);
    },
  );

  test('an answer nesting past the bound fails as too deep', async () => {
    await expect(parseExactJson('['.repeat(100), 'reading')).rejects.toThrow(
      new InvalidResponseError("reading: the service's answer nests deeper than 64 levels"),
    );
  });
});
