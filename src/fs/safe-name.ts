/**
 * Reduces a file name that came from the service (or from a user's argument that is sent to it) to
 * a plain base name, so that nothing is ever written outside the output folder: no separators of
 * either platform, no `.`/`..`, no control characters. Undefined when nothing usable remains.
 */
export function safeBaseName(name: string): string | undefined {
  const base = name.split(/[\\/]/).pop() ?? '';
  const cleaned = base.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  if (cleaned === '' || cleaned === '.' || cleaned === '..') return undefined;
  return cleaned;
}
