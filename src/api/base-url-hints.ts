/**
 * Every hint that sends the user to check the service's base URL, as a function of where that URL
 * came from (--base-url, VREDACT_BASE_URL, the config file): the client learns it as it learns the
 * token's source, and each hint names the place where the URL is set (setting-origin.ts words it).
 */
import { baseUrlPointer, baseUrlShowAndSet } from '../settings/setting-origin.js';
import type { SettingSource } from '../settings/settings.js';

/** Where the base URL in effect came from; undefined where it is not known (the config file's words). */
export type BaseUrlSource = SettingSource | undefined;

/**
 * An answer outside the interface, or a refusal of a request sent as it says: a base URL that leads
 * elsewhere (a proxy's or a portal's page) is the likelier cause, and only the service's operators
 * can mend the service's.
 */
export function unexpectedAnswerHint(source: BaseUrlSource): string {
  return `check that the base URL points at the service (${baseUrlPointer(source)}); if it does, report this answer to the service's operators`;
}

/** A connection that failed or dropped. */
export function urlAndNetworkHint(source: BaseUrlSource): string {
  return `check the service URL (${baseUrlPointer(source)}) and your network`;
}

/** The service's host cannot be reached, or its certificate is not trusted. */
export function isUrlRightHint(source: BaseUrlSource): string {
  return `is the service URL right? check ${baseUrlPointer(source)}`;
}

/** A host name that does not exist. */
export function checkUrlHint(source: BaseUrlSource): string {
  return `check the service URL (${baseUrlPointer(source)})`;
}

/** Nothing at the base URL has answered in HTTP this run. */
export function neverAnsweredHint(source: BaseUrlSource): string {
  return `check the service URL and its port (${baseUrlPointer(source)}); if they are right, the service is not answering: try again later`;
}

/** Something that is not HTTP/1.1 answered. */
export function notHttpHint(source: BaseUrlSource): string {
  return `check the service URL and its port (${baseUrlPointer(source)}): something that is not an HTTP server listens there, or a proxy between garbles the answers`;
}

/** Headers larger than vredact reads. */
export function oversizedHeadersHint(source: BaseUrlSource): string {
  return `check the service URL (${baseUrlPointer(source)}); if it is right, report this answer to the service's operators`;
}

/** A TLS handshake with a port that serves plain HTTP. */
export function plainPortHint(source: BaseUrlSource): string {
  return `check the service URL (${baseUrlPointer(source)}): an https:// URL whose port serves plain HTTP fails so`;
}

/** A 404 on a path every service answers on (the jobs list, the upload). */
export function baseUrlNotFoundHint(source: BaseUrlSource, basePath: string): string {
  return basePath
    ? `the base URL holds a path (${basePath}) the service may not answer on: check ${baseUrlPointer(source)}`
    : `check that the base URL points at the service: ${baseUrlPointer(source)}`;
}

/** A redirect that says nowhere: the base URL is not the service's own address. */
export function redirectNowhereHint(source: BaseUrlSource, notFollowed: string): string {
  return `it redirects without saying where (no Location), and ${notFollowed}: the base URL is not the service's own address (check http:// against https://, and its path): ${baseUrlShowAndSet(source)}`;
}

/** A job named by an answer of this run that does not exist. */
export function checkBaseUrlHint(source: BaseUrlSource): string {
  return `check that the base URL points at the service (${baseUrlPointer(source)})`;
}

/**
 * Where a stop's hint points for the base URL: where it was set, or, where the source is not known,
 * every place it may come from, as `vredact config get base-url` names the one in effect.
 */
function serviceUrlPointer(source: BaseUrlSource): string {
  return source === 'flag' || source === 'env'
    ? baseUrlPointer(source)
    : `${baseUrlPointer(source)} shows the one in effect and where it comes from: --base-url, VREDACT_BASE_URL or the config file`;
}

/** A batch stopped on answers of something that is not the service. */
export function wrongServiceHint(source: BaseUrlSource): string {
  return `check that the base URL points at the Voice Redaction Service (${serviceUrlPointer(source)}); the next run sends the files not sent`;
}

/**
 * A batch stopped because jobs of earlier runs were answered 404 by something that is not the
 * service: nothing was sent, and those jobs wait at the service for a run pointed at it.
 */
export function jobsAtNonServiceHint(source: BaseUrlSource): string {
  return `check that the base URL points at the Voice Redaction Service (${serviceUrlPointer(source)}); once it does, run the same command again: it looks at those jobs at the service`;
}
