/**
 * The service's JSON, read with its numbers exact. A JavaScript number holds integers exactly only up
 * to 2^53, so JSON.parse reads `{"id": 12345678901234567891}` as 12345678901234567000: another job's
 * id. The streaming tokenizer hands over each number's text as written; a number is kept as a number
 * only where that loses nothing, any other as a NumberLiteral holding its text. (JSON.parse's reviver
 * sees the text only from Node.js 21 on.)
 */
import type { ParsedElementInfo, TokenParserOptions } from '@streamparser/json';
import { InvalidResponseError } from './errors.js';
import { depthCounter } from './json-depth.js';

/** A JSON number that a JavaScript number would not hold as written: its text, exactly. */
export class NumberLiteral {
  constructor(readonly text: string) {}

  /** A field vredact passes on unread (`--json` prints unknown fields) stays a number, as before. */
  toJSON(): number {
    return Number(this.text);
  }
}

/** A number of a parsed answer: a number whose decimal text is its literal, or that literal kept. */
export type JsonNumber = number | NumberLiteral;

/**
 * A number where its text reads back as written; otherwise the literal itself. An integer past 2^53
 * is kept as its literal even where it reads back (2^53 does): an id's digits never rest on chance.
 */
export function numberOf(text: string): JsonNumber {
  const value = Number(text);
  const exact = String(value) === text && (!Number.isInteger(value) || Number.isSafeInteger(value));
  return exact ? value : new NumberLiteral(text);
}

/** The literal of a JSON number as the answer wrote it (a number from numberOf reads back as written). */
export function literalOf(value: JsonNumber): string {
  return typeof value === 'number' ? String(value) : value.text;
}

/** The library's JSONParser, with numbers read by numberOf and nesting bounded (json-depth.ts). */
export interface ExactJsonParser {
  write(chunk: Uint8Array | string): void;
  end(): void;
  readonly isEnded: boolean;
  onValue: (info: ParsedElementInfo) => void;
  onError: (error: Error) => void;
  /**
   * What was wrong with the text, in a reader's words, for an error this parser reported: "is not
   * valid JSON at byte 37" (counted from 1, as cmp does), or "ends after 40 bytes, before its JSON is
   * complete". The library's own words name its states (`VALUE`, `STRING_DEFAULT`).
   */
  problemOf(error: Error): string;
}

/** The library's tokenizer names the byte it stopped at, from 0, only in its message. */
const TOKENIZER_POSITION = /\(absolute position "(\d+)"\)/;

/** `what` names the answer in the error for one nesting too deep. */
export async function exactJsonParser(what: string, options: TokenParserOptions): Promise<ExactJsonParser> {
  const { Tokenizer, TokenParser, TokenType } = await import('@streamparser/json');
  class ExactTokenizer extends Tokenizer {
    protected override parseNumber(text: string): number {
      // The token parser stores whatever this gives; the types of the library allow a number only.
      return numberOf(text) as number;
    }
  }
  const tokenizer = new ExactTokenizer();
  const tokenParser = new TokenParser(options);
  const countDepth = depthCounter(what, TokenType);
  let written = 0;
  let ending = false;
  // Where the token the parser last took begins: a token out of place is named by it.
  let tokenAt = 0;
  // Wired as the library's JSONParser wires its own two parts.
  tokenizer.onToken = (token) => {
    countDepth(token);
    tokenAt = token.offset;
    tokenParser.write(token);
  };
  tokenizer.onEnd = () => {
    if (!tokenParser.isEnded) tokenParser.end();
  };
  tokenParser.onError = (error) => tokenizer.error(error);
  tokenParser.onEnd = () => {
    if (!tokenizer.isEnded) tokenizer.end();
  };
  return {
    write: (chunk) => {
      written += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      tokenizer.write(chunk);
    },
    end: () => {
      ending = true;
      tokenizer.end();
    },
    problemOf: (error: Error) => {
      if (ending) return `ends after ${written} bytes, before its JSON is complete`;
      const at = TOKENIZER_POSITION.exec(error.message)?.[1];
      return `is not valid JSON at byte ${(at === undefined ? tokenAt : Number(at)) + 1}`;
    },
    get isEnded() {
      return tokenizer.isEnded && tokenParser.isEnded;
    },
    set onValue(callback: (info: ParsedElementInfo) => void) {
      tokenParser.onValue = callback;
    },
    set onError(callback: (error: Error) => void) {
      tokenizer.onError = callback;
    },
  } as ExactJsonParser;
}

/**
 * A whole JSON document, as JSON.parse would read it but with numbers exact. Throws the depth error
 * (an InvalidResponseError) or, for anything that is not one JSON document, a SyntaxError saying
 * what is wrong with the text (see problemOf: "is not valid JSON at byte 37", "is empty").
 */
export async function parseExactJson(text: Uint8Array | string, what: string): Promise<unknown> {
  const parser = await exactJsonParser(what, { paths: ['$'], keepStack: false });
  let root: { value: unknown } | undefined;
  let failure: Error | undefined;
  parser.onValue = ({ value }) => {
    root = { value };
  };
  parser.onError = (error) => {
    failure ??= error;
  };
  parser.write(text);
  if (failure === undefined && !parser.isEnded) parser.end();
  if (failure instanceof InvalidResponseError) throw failure;
  if (failure !== undefined) throw new SyntaxError(parser.problemOf(failure));
  if (root === undefined) throw new SyntaxError('is empty');
  return root.value;
}
