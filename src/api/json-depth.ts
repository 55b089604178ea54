/**
 * A bound on how deep a JSON answer may nest. The streaming parser keeps a stack entry and a container
 * per level, so an answer of a million `[` costs hundreds of MB (and seconds of one busy event loop)
 * before it fails as unterminated; a whole-body JSON.parse of one is no better. The interface's answers
 * nest 3 to 4 levels, so 64 leaves room for any extra fields a service adds. Depth is counted on the
 * tokenizer's tokens, before anything is built from them, so a deeper answer fails at the first level
 * too many, in flat memory.
 */
import type { ParsedTokenInfo, TokenType } from '@streamparser/json';
import { InvalidResponseError } from './errors.js';

export const MAX_JSON_DEPTH = 64;

export function tooDeep(what: string): InvalidResponseError {
  return new InvalidResponseError(`${what}: the service's answer nests deeper than ${MAX_JSON_DEPTH} levels`);
}

/**
 * A token callback that throws past MAX_JSON_DEPTH (the tokenizer hands the throw to its onError).
 * `types` is the library's TokenType, from the caller's lazy import of it.
 */
export function depthCounter(what: string, types: typeof TokenType): (token: ParsedTokenInfo) => void {
  let depth = 0;
  return ({ token }) => {
    if (token === types.LEFT_BRACE || token === types.LEFT_BRACKET) {
      if (++depth > MAX_JSON_DEPTH) throw tooDeep(what);
    } else if (token === types.RIGHT_BRACE || token === types.RIGHT_BRACKET) {
      depth--;
    }
  };
}

/**
 * Fails, as it is fed, an answer nesting deeper than the bound; says nothing of anything else (whether
 * it is JSON at all is for the parser that reads it).
 */
export async function depthCheck(what: string): Promise<{ write(chunk: Uint8Array): void }> {
  const { Tokenizer, TokenType: types } = await import('@streamparser/json');
  const tokenizer = new Tokenizer();
  let tooDeepError: InvalidResponseError | undefined;
  let notJson = false;
  tokenizer.onToken = depthCounter(what, types);
  tokenizer.onError = (error) => {
    if (error instanceof InvalidResponseError) tooDeepError ??= error;
    else notJson = true;
  };
  return {
    write(chunk) {
      if (!tooDeepError && !notJson) tokenizer.write(chunk);
      if (tooDeepError) throw tooDeepError;
    },
  };
}
