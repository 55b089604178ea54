import { describe, expect, it } from 'vitest';
import { type AnsweredRequest, answerHint } from '../../src/api/answer-hints.js';
import type { BaseUrlSource } from '../../src/api/base-url-hints.js';
import { scrubberFor } from '../../src/api/scrub.js';

const TOKEN = 'vr_hint_0123456789abcdef';

/** The hint of a 301 from `location`, to a request of `path` below the base URL `base`. */
function redirected(
  location: string,
  base = 'http://svc.example',
  path = '/api/jobs',
  source?: BaseUrlSource,
) {
  const baseUrl = new URL(base);
  const request: AnsweredRequest = {
    url: new URL(`${baseUrl.pathname.replace(/\/+$/, '')}${path}`, baseUrl),
    baseUrl,
    signedLink: false,
    location,
    scrub: scrubberFor([TOKEN]),
    ...(source === undefined ? {} : { baseUrlSource: source }),
  };
  return answerHint(301, request);
}

describe("a redirect's hint names the base URL it points the service at", () => {
  it('where the Location keeps the request path: an http→https redirect, a new host, a new path prefix', () => {
    expect(redirected('https://svc.example/api/jobs')).toBe(
      'it redirects to https://svc.example/api/jobs, and vredact does not follow redirects of the service: if the service moved there, set the base URL to https://svc.example (`vredact config set base-url https://svc.example`)',
    );
    expect(
      redirected(
        'https://new.example:8443/voice/api/speech-to-speech-biometric-redaction?x=1',
        'http://svc.example/old',
        '/api/speech-to-speech-biometric-redaction',
      ),
    ).toContain(
      'set the base URL to https://new.example:8443/voice (`vredact config set base-url https://new.example:8443/voice`)',
    );
    // Relative to the request, as HTTP resolves it.
    expect(redirected('/v2/api/jobs')).toContain('set the base URL to http://svc.example/v2 (');
    // Where the base URL is set, when not in the config file.
    expect(redirected('https://svc.example/api/jobs', undefined, undefined, 'env')).toMatch(
      /set the base URL to https:\/\/svc\.example \(it is the URL set in VREDACT_BASE_URL\)$/,
    );
    expect(redirected('https://svc.example/api/jobs', undefined, undefined, 'flag')).toMatch(
      /\(it is the URL given with --base-url\)$/,
    );
  });

  it('elsewhere (a login page, the same URL, credentials, another scheme): its new address, unnamed', () => {
    const generic =
      /if the service moved, set the base URL to its new address \(`vredact config set base-url <url>`\)$/;
    expect(redirected('https://sso.example/login?next=/api/jobs')).toMatch(generic);
    expect(redirected('/api/jobs?page=2')).toMatch(generic);
    expect(redirected(`https://user:${TOKEN}@svc.example/api/jobs`)).toMatch(generic);
    expect(redirected(`https://user:${TOKEN}@svc.example/api/jobs`)).not.toContain(TOKEN);
    expect(redirected('ftp://svc.example/api/jobs')).toMatch(generic);
    expect(redirected('https://svc.example/api/jobs', undefined, undefined, 'env')).toMatch(
      /set the base URL to https:\/\/svc\.example \(it is the URL set in VREDACT_BASE_URL\)$/,
    );
    expect(redirected('https://sso.example/', undefined, undefined, 'env')).toMatch(
      /set the base URL to its new address \(it is the URL set in VREDACT_BASE_URL\)$/,
    );
  });

  it('a token in the path it names is scrubbed', () => {
    expect(redirected(`https://svc.example/${TOKEN}/api/jobs`)).not.toContain(TOKEN);
  });
});
