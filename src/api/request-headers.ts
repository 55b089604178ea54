/**
 * The headers of one request to the service or to a signed link: what is sent, and what is
 * deliberately not (no credentials to a signed link, no coding the client would have to undo).
 */
import type { MultipartBody } from './multipart.js';

export interface HeaderNeeds {
  userAgent: string;
  /** The bearer token, or undefined for a request that must carry no credentials. */
  token: string | undefined;
  json?: boolean | undefined;
  form?: MultipartBody | undefined;
}

export function requestHeaders(needs: HeaderNeeds): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': needs.userAgent };
  // Signed URLs are fetched with no credentials at all: they may point at another host.
  if (needs.token !== undefined) headers.authorization = `Bearer ${needs.token}`;
  if (needs.json) headers['content-type'] = 'application/json';
  if (needs.form) {
    headers['content-type'] = needs.form.contentType;
    headers['content-length'] = String(needs.form.contentLength);
  }
  if (needs.json || needs.token !== undefined) headers.accept = 'application/json, audio/*;q=0.9, */*;q=0.1';
  // No header would allow any coding (RFC 9110); one sent anyway is still decoded (content-encoding.ts).
  headers['accept-encoding'] = 'identity';
  return headers;
}
