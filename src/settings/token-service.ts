/**
 * The config file's token goes only to the config file's service, as `gh` keeps a token per host: a
 * `--base-url` or VREDACT_BASE_URL meant for another service (staging, a test stub, a URL set by a
 * project's `.env`) would otherwise be sent the stored token of production. A token given with the
 * URL (`--token`, VREDACT_TOKEN) goes where it is told.
 */
import { UsageError } from '../errors.js';
import { displayBaseUrl } from './base-url.js';
import { settingOrigin } from './setting-origin.js';
import type { Settings } from './settings.js';

/** `https://host:8443/prefix`: origin and path without trailing slashes; the text when it is no URL. */
function serviceOf(text: string): string {
  const url = URL.parse(text);
  return url ? `${url.origin}${url.pathname.replace(/\/+$/, '')}` : text;
}

/** Whether two base URLs name one service (`https://Host/` and `https://host` do). */
export function sameService(a: string, b: string): boolean {
  return serviceOf(a) === serviceOf(b);
}

/**
 * A usage error (exit 2, before any request) when the token is the config file's and the base URL is
 * not: the config file's own base-url is the service it is for.
 */
export function requireTokenForService(
  baseUrl: URL,
  settings: Pick<Settings, 'sources' | 'storedTokenFor'>,
): void {
  const storedFor = settings.storedTokenFor;
  const urlSource = settings.sources['base-url'];
  if (settings.sources.token !== 'config' || storedFor === undefined || urlSource === 'config') return;
  if (sameService(storedFor, baseUrl.href)) return;
  const from = settingOrigin('base-url', urlSource ?? 'default');
  throw new UsageError(
    `the stored token is for ${displayBaseUrl(storedFor)} (the config file's base-url), not for ${displayBaseUrl(serviceOf(baseUrl.href))} (from ${from}), and is not sent there`,
    "give that service's token (VREDACT_TOKEN, or --token), or store one for it with `vredact login`; if the service moved, `vredact config set base-url <url>`",
  );
}
