import { describe, expect, it } from 'vitest';
import { filePath, UrlSigner } from '../../src/sandbox/signing.js';

const NOW = Date.parse('2026-11-22T05:00:00Z');

function pathAndQuery(signed: string): string {
  const url = new URL(signed);
  return `${url.pathname}${url.search}`;
}

describe('UrlSigner', () => {
  it('a signed URL points at the origin, holds the encoded path and verifies back to its job and file', () => {
    const signer = new UrlSigner('http://127.0.0.1:9999', 60, () => NOW);
    const signed = signer.sign('job 1', 'weird #1 100%?.wav');
    expect(
      signed.startsWith(`http://127.0.0.1:9999${filePath('job 1', 'weird #1 100%?.wav')}?expires=`),
    ).toBe(true);
    expect(new URL(signed).searchParams.get('expires')).toBe(String(NOW / 1000 + 60));
    expect(signer.verify(pathAndQuery(signed))).toEqual({
      ok: true,
      jobId: 'job 1',
      fileName: 'weird #1 100%?.wav',
    });
  });

  it('a changed signature, file, or expiry is SignatureDoesNotMatch; another signer (a restart) too', () => {
    const signer = new UrlSigner('http://h', 60, () => NOW);
    const signed = pathAndQuery(signer.sign('j', 'a.wav'));
    const sig = new URLSearchParams(signed.split('?')[1]).get('sig')!;
    const flipped = signed.replace(sig, `${sig[0] === '0' ? '1' : '0'}${sig.slice(1)}`);
    for (const url of [
      flipped,
      signed.replace('/a.wav', '/b.wav'),
      signed.replace(/expires=(\d+)/, 'expires=9999999999'),
    ]) {
      expect(signer.verify(url)).toMatchObject({ ok: false, status: 403, code: 'SignatureDoesNotMatch' });
    }
    expect(new UrlSigner('http://h', 60, () => NOW).verify(signed)).toMatchObject({ ok: false, status: 403 });
  });

  it('an expired URL is refused', () => {
    let now = NOW;
    const signer = new UrlSigner('http://h', 60, () => now);
    const signed = pathAndQuery(signer.sign('j', 'a.wav'));
    now += 61_000;
    expect(signer.verify(signed)).toEqual({
      ok: false,
      status: 403,
      code: 'AccessDenied',
      message: 'Request has expired.',
    });
  });

  it('missing or malformed parameters are a 403; another path or bad encoding a 404', () => {
    const signer = new UrlSigner('http://h');
    expect(signer.verify('/files/j/a.wav')).toMatchObject({ ok: false, status: 403, code: 'AccessDenied' });
    expect(signer.verify('/files/j/a.wav?expires=1&sig=xyz')).toMatchObject({ ok: false, status: 403 });
    expect(signer.verify('/other/j/a.wav')).toMatchObject({ ok: false, status: 404, code: 'NoSuchKey' });
    expect(signer.verify('/files/j/sub/a.wav')).toMatchObject({ ok: false, status: 404 });
    expect(signer.verify('/files/%E0%A4%A/a.wav')).toMatchObject({ ok: false, status: 404 });
  });
});
