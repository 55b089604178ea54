/**
 * The one loopback rule: `localhost`, `::1` (with or without brackets) and the whole 127.0.0.0/8.
 * Used where plain http is allowed without `--allow-insecure-http` and where the sandbox may listen.
 */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host === '::1' || host === '[::1]') return true;
  const parts = host.split('.');
  return (
    parts.length === 4 &&
    parts[0] === '127' &&
    parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)
  );
}
