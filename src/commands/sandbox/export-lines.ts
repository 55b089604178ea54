/** The `export` lines the sandbox prints, for a shell to source (`. ./sandbox.env`). */

/**
 * `value` as one POSIX shell word: bare when no character of it means anything to a shell, else
 * single-quoted. A `--token` may hold any printable character: bare, `tok$en;…` set the token to
 * "tok" and ran the rest as a command; an IPv6 URL's brackets are a glob.
 */
export function shellWord(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

export function exportLines(baseUrl: string, token: string): string {
  return `export VREDACT_BASE_URL=${shellWord(baseUrl)}\nexport VREDACT_TOKEN=${shellWord(token)}\n`;
}
