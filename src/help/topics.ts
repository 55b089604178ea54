/** `vredact help <topic>`: what a user needs beyond one command's options. */

const EXIT_CODES = `Exit codes of every vredact command

  0    everything asked for was done, or was already done
       (redact --no-wait: every file was submitted; redact --min-age: files
       too recent were left for a later run)
  1    some files were rejected, failed or left pending (the rest were done),
       or a request failed, or stdout could not be written (a full disk: what
       it printed is incomplete); a later run of the same command finishes
       the batch. For redact, also a batch that stopped: a full disk, the
       service gone too long, its lock taken over, or uploads answered by
       something that is not the service (check the base URL)
  2    usage or configuration error: a bad flag, no service URL or token, an
       output folder locked by another run, an unsupported Node.js; nothing was sent
  3    the service refused the token (401 or 403); a batch stops at once.
       Run \`vredact login\` or set VREDACT_TOKEN
  130  interrupted: Ctrl-C; for redact, download and sandbox SIGTERM too, and
       for redact and download a closed stdout or a hangup (its terminal
       closed); what was in flight is recorded, and a later run finishes the
       batch (a sandbox stops once it has closed its ports and freed its
       --data-dir)

In cron, act on them: 0 is quiet, 1 worth a look in the log, 2 and 3 need a person.
`;

const ENVIRONMENT = `Environment variables

  VREDACT_BASE_URL      service URL (as --base-url; config key base-url)
  VREDACT_TOKEN         usage token (as --token; config key token). Prefer this
                        or \`vredact login\` to --token, which \`ps\` shows
  VREDACT_CONCURRENCY   files in flight at once, 1 to 64 (as -c; config key concurrency)
  VREDACT_SHARD         this machine's share of the inputs, i/n (as redact --shard)
  VREDACT_MAX_THROTTLE_WAIT
                        how long throttling (429) is ridden out, e.g. 30m (as --max-throttle-wait)
  VREDACT_MAX_OUTAGE_WAIT
                        how long a batch waits for a service that answered and then
                        cannot be reached, e.g. 10m (as redact --max-outage-wait)
  VREDACT_LOCK_WAIT     how long redact waits for another run's lock of its output
                        folder, e.g. 15m (as redact --lock-wait; default 0: exit 2)
  VREDACT_ALLOW_INSECURE_HTTP=1
                        allow an http:// service URL that is not loopback
  VREDACT_CONFIG_DIR    folder of the config file (default: the platform's,
                        ~/.config/vredact on Linux); one per account, or for tests
  HTTPS_PROXY           the proxy of https requests, http://[user:password@]host:port
                        (https_proxy first if both are set); HTTP_PROXY (http_proxy)
                        is the proxy of plain http ones only. Requests go through
                        it in a CONNECT tunnel: it never sees the token or a file
  NO_PROXY              hosts reached directly, comma-separated: names (their
                        subdomains too), addresses, ranges (10.0.0.0/8), each with
                        an optional :port, or *. Loopback is always direct
  NO_COLOR              any non-empty value turns colour off (as --no-color);
                        CLICOLOR=0 too
  NODE_DISABLE_COMPILE_CACHE=1
                        on Node.js 22.8 or newer, vredact keeps its compiled code
                        in Node.js's compile cache (node-compile-cache in the
                        temporary folder, or NODE_COMPILE_CACHE) to start faster;
                        this turns that off

Precedence: a flag, then the environment, then the config file, then the
default. An empty variable counts as unset. \`vredact config list\` shows each
value and where it came from. A cron job gets none of your shell's variables:
load them from a file (see the README's cron recipe).
`;

const JOURNAL = `The journal: how re-runs never send a file twice

Each output folder has <out>/.vredact/journal.jsonl (mode 0600), append only,
one JSON object per line and per state change of an input:

  uploading   written and flushed just before an upload starts
  submitted   the service answered with a job id; flushed before waiting
  done        the result is verified and in place (via sync or job)
  failed      the upload or result failed, with a reason; a re-run sends it again
  rejected    a local check failed (not audio, too big, too long), with a reason

Every line carries the input's real path, size, modification time, a hash of
the target-voice options, the output path and, when known, the job id.

A re-run reads the journal and, per input with the same size, time and options:
  done (and its output still there)  skipped
  submitted                          its job is collected, never uploaded again
  uploading                          looked up among the service's jobs first,
                                     sent again only when not found
  failed, rejected or changed        sent again

A done file whose time alone changed (a restore, a copy, a touch) is hashed:
the bytes its done line sent are skipped and journaled with the new time.

A submitted line with no usable job id (edited by hand) counts as uploading.
A line written by a newer vredact stops the run, exit 2: upgrade vredact.

<out>/.vredact/lock keeps a second run off the same output folder (exit 2).
\`vredact status -o <out>\` summarises the journal; \`redact --dry-run\` shows
what a run would do without the network.
`;

export const HELP_TOPICS: Readonly<Record<string, { summary: string; text: string }>> = {
  'exit-codes': { summary: 'what each exit code means, for scripts and cron', text: EXIT_CODES },
  environment: { summary: 'environment variables and settings precedence', text: ENVIRONMENT },
  journal: { summary: 'how re-runs skip done files and collect pending jobs', text: JOURNAL },
};

/** The list shown at the end of the top-level help. */
export function topicList(): string {
  const width = Math.max(...Object.keys(HELP_TOPICS).map((name) => name.length));
  return Object.entries(HELP_TOPICS)
    .map(([name, topic]) => `  vredact help ${name.padEnd(width)}  ${topic.summary}`)
    .join('\n');
}
