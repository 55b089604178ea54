/**
 * A `Location` is parsed as a URL, and the URL parser drops every tab and line break inside it
 * without a word: the id it gives would then be another than the one the header names.
 */
import { describe, expect, it } from 'vitest';
import { jobIdOfLocation, jobIdOfLocationHeaders } from '../../src/api/job-location.js';
import { scrubberFor } from '../../src/api/scrub.js';

const scrub = scrubberFor(['vr_live_0123456789abcdef']);
const REQUEST = new URL('https://svc.example:8443/v2/api/speech-to-speech-biometric-redaction');
const JOBS = new URL('https://svc.example:8443/v2/api/jobs');

describe('jobIdOfLocation, a control character inside the header', () => {
  it.each([
    ['/v2/api/jobs/ab\tc', 'a tab in the id'],
    ['/v2/api/jobs/j1\t/content', 'a tab before /content'],
    ['/v2/api/\tjobs/j1', 'a tab in the path'],
    ['/v2/api/jobs/a\nb', 'a line break in the id'],
    ['/v2/api/jobs/a\rb', 'a carriage return in the id'],
    ['/v2/api/jobs/a\u0000b', 'a NUL'],
    ['/v2/api/jobs/a\u007fb', 'a DEL'],
  ])('%j (%s) names no job: not the id left once the parser drops it', (location) => {
    expect(jobIdOfLocation(location, REQUEST, JOBS, scrub)).toBeUndefined();
  });

  it("spaces and tabs around the value are the header field's own, not the id's", () => {
    expect(jobIdOfLocation('\t/v2/api/jobs/j1 \t', REQUEST, JOBS, scrub)).toBe('j1');
  });

  it('a Location spoilt that way leaves the Content-Location to name the job', () => {
    const headers = { location: '/v2/api/jobs/ab\tc', 'content-location': '/v2/api/jobs/j2' };
    expect(jobIdOfLocationHeaders(headers, REQUEST, JOBS, scrub)).toBe('j2');
  });
});
