/**
 * What an error answer's body says: the service's `{error, message}`, or an RFC 9457 problem's words.
 * Read by the typed errors (errors.ts) and by the capped body reader (error-body.ts) alike.
 */
/**
 * Where an error body's message may be, the first found winning: the interface's `message`, then an
 * RFC 9457 problem's `detail` and `title` (`application/problem+json`, as gateways and web frameworks
 * in front of a service answer their own refusals).
 */
export const MESSAGE_FIELDS = ['message', 'detail', 'title'] as const;

/** The first of MESSAGE_FIELDS that `valueOf` gives as non-blank text, trimmed. */
export function firstMessage(
  valueOf: (field: (typeof MESSAGE_FIELDS)[number]) => unknown,
): string | undefined {
  for (const field of MESSAGE_FIELDS) {
    const value = valueOf(field);
    if (typeof value === 'string' && value.trim()) return value.trim();
  }
  return undefined;
}

/**
 * Reads the service's `{error, message}` body, or a problem's (MESSAGE_FIELDS); anything else (HTML
 * from a proxy, empty) gives undefined. A UTF-8 byte order mark before the JSON is read past, as
 * RFC 8259 allows a reader to and the answers' own JSON reader does: the message was lost.
 */
export function serviceMessageOf(bodyText: string): string | undefined {
  try {
    const body: unknown = JSON.parse(bodyText.startsWith('\uFEFF') ? bodyText.slice(1) : bodyText);
    if (body && typeof body === 'object' && !Array.isArray(body)) {
      const fields = body as Record<string, unknown>;
      return firstMessage((field) => fields[field]);
    }
  } catch {
    // not JSON: the status alone speaks
  }
  return undefined;
}

/** What an error answer's body says, as far as it was read (error-body.ts). */
export interface ErrorBody {
  /** The service's message, as it came. */
  message: string | undefined;
  /** Set when the body went past this many bytes, and only those were read. */
  cutAt?: number;
}
