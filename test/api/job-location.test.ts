import { describe, expect, it } from 'vitest';
import { jobIdOfLocation } from '../../src/api/job-location.js';
import { scrubberFor } from '../../src/api/scrub.js';

const TOKEN = 'vr_live_0123456789abcdef';
const scrub = scrubberFor([TOKEN]);
const REQUEST = new URL('https://svc.example:8443/v2/api/speech-to-speech-biometric-redaction');
const JOBS = new URL('https://svc.example:8443/v2/api/jobs');

const idOf = (location: string, jobs = JOBS, request = REQUEST) =>
  jobIdOfLocation(location, request, jobs, scrub);

describe('jobIdOfLocation', () => {
  it.each([
    ['/v2/api/jobs/3f2a9c', '3f2a9c'],
    ['/v2/api/jobs/3f2a9c/', '3f2a9c'],
    ['/v2/api/jobs/3f2a9c/content', '3f2a9c'],
    ['/v2/api/jobs/3f2a9c/content/', '3f2a9c'],
    ['/v2/api/jobs/3f2a9c?wait=30#top', '3f2a9c'],
    ['/v2/api/jobs/3f2a9c/content?page=1', '3f2a9c'],
    ['https://svc.example:8443/v2/api/jobs/3f2a9c', '3f2a9c'],
    ['HTTPS://SVC.EXAMPLE:8443/v2/api/jobs/3f2a9c', '3f2a9c'],
    // Relative to the request's own path: `…/api/` + `jobs/…`.
    ['jobs/3f2a9c', '3f2a9c'],
    ['../api/jobs/3f2a9c', '3f2a9c'],
    ['//svc.example:8443/v2/api/jobs/3f2a9c', '3f2a9c'],
    ['  /v2/api/jobs/3f2a9c  ', '3f2a9c'],
    // Percent-decoded once: `job 1` and `%41` (which the service named `%2541`) as given.
    ['/v2/api/jobs/job%201', 'job 1'],
    ['/v2/api/jobs/%E6%97%A5%E6%9C%AC', '日本'],
    ['/v2/api/jobs/content', 'content'],
  ])('%j names the job %j', (location, jobId) => {
    expect(idOf(location)).toBe(jobId);
  });

  it('the default port and the base path "/" are the same service', () => {
    const jobs = new URL('https://svc.example/api/jobs');
    const request = new URL('https://svc.example/api/speech-to-speech-biometric-redaction');
    expect(idOf('https://svc.example:443/api/jobs/j1', jobs, request)).toBe('j1');
    expect(idOf('/api/jobs/j1/content', jobs, request)).toBe('j1');
  });

  it.each([
    ['', 'nothing'],
    ['https://other.example:8443/v2/api/jobs/j1', 'another host'],
    ['http://svc.example:8443/v2/api/jobs/j1', 'another scheme'],
    ['https://svc.example/v2/api/jobs/j1', 'another port'],
    ['/api/jobs/j1', 'outside the base path'],
    ['/v2/api/jobsj1', 'another path'],
    ['/v2/api/jobs', 'the jobs themselves'],
    ['/v2/api/jobs/', 'no id'],
    ['/v2/api/jobs//content', 'an empty id'],
    ['/v2/api/jobs/j1/files/download-url', 'another request of the job'],
    ['/v2/api/jobs/j1/content/more', 'below the content'],
    ['/v2/api/jobs/j1//', 'two trailing slashes'],
    ['/V2/API/JOBS/j1', 'a path of another case'],
    ['/v2/api/queue/j1', 'a status monitor elsewhere'],
    ['javascript:alert(1)', 'no web address'],
    ['http://[::1', 'no address at all'],
  ])('%j (%s) names no job', (location) => {
    expect(idOf(location)).toBeUndefined();
  });

  it.each([
    ['/v2/api/jobs/a%2Fb', 'an encoded slash'],
    ['/v2/api/jobs/a%5Cb', 'an encoded backslash'],
    ['/v2/api/jobs/%2e%2e', 'an encoded ..'],
    ['/v2/api/jobs/a%252Fb', 'a slash encoded twice'],
    ['/v2/api/jobs/a%3Fb', 'an encoded ?'],
    ['/v2/api/jobs/%1b%5b2J', 'an escape sequence'],
    ['/v2/api/jobs/a%00b', 'a NUL'],
    ['/v2/api/jobs/a%C2%9Bb', 'a C1 control'],
    ['/v2/api/jobs/a%0d%0ab', 'a line break'],
    ['/v2/api/jobs/%ED%A0%80', 'a lone surrogate'],
    ['/v2/api/jobs/%E0%A4%A', 'a broken escape'],
    ['/v2/api/jobs/100%', 'a lone %'],
    [`/v2/api/jobs/${'x'.repeat(1025)}`, 'an id past 1024 characters'],
    ['/v2/api/jobs/%20', 'a blank id'],
  ])('%j (%s) is no id vredact uses: ignored', (location) => {
    expect(idOf(location)).toBeUndefined();
  });

  it('an id holding the token is scrubbed before it is used or shown', () => {
    const id = idOf(`/v2/api/jobs/job-${TOKEN}`);
    expect(id).toBeDefined();
    expect(id).not.toContain(TOKEN);
    expect(id).toMatch(/^job-/);
  });
});
