/** The commands that talk to the service (and `status`, which reads what `redact` wrote). */
import type { Command } from 'commander';
import { action } from './action.js';
import { positional } from './positional.js';
import {
  addConcurrencyOption,
  addExamples,
  addNetworkOptions,
  addProgressOptions,
  addVoiceOptions,
  option,
  pathOption,
} from './option.js';

export function addLoginCommand(program: Command): void {
  const login = program
    .command('login')
    .description('check a usage token with the service, then store it in the config file')
    .option('--token-stdin', 'read the token from standard input instead of asking for it');
  addExamples(addNetworkOptions(login), [
    ['vredact login', 'asks for the token without echo'],
    ['vredact login --token-stdin < token.txt', 'from a file or a secret store, in a script'],
  ]).action(
    action(async () => (await import('../commands/auth/login.js')).runLogin, { rewritesConfig: true }),
  );
}

export function addJobsCommands(program: Command): void {
  const jobs = program.command('jobs').description('list, create and inspect jobs').helpCommand(false);
  addExamples(jobs, [
    ['vredact jobs list', 'your jobs, newest first'],
    ['vredact jobs content 55e5…', "a job's files"],
  ]);
  const list = jobs
    .command('list')
    .description('list the newest jobs of your token, newest first')
    .addOption(
      option('-L, --limit <n>', 'show at most this many jobs, the newest').documentDefault(
        '30; all with --json',
      ),
    )
    .option('--all', 'show every job (all are held in memory to be sorted)');
  addExamples(addNetworkOptions(list), [
    ['vredact jobs list', 'the 30 newest: a table on a terminal, tab-separated lines in a pipe'],
    ['vredact jobs list --limit 500', 'the 500 newest'],
    ['vredact jobs list --json | jq -r ".[].job_id"', 'every job id, for a script'],
  ]).action(action(async () => (await import('../commands/jobs/list.js')).runJobsList));
  addExamples(addNetworkOptions(jobs.command('create').description('create an empty job and print its id')), [
    ['vredact jobs create', 'prints the new job id'],
  ]).action(action(async () => (await import('../commands/jobs/create.js')).runJobsCreate));
  addExamples(
    addNetworkOptions(
      jobs
        .command('content')
        .addArgument(positional('<jobId>', 'a job id, from `vredact jobs list`', 'job-id'))
        .description("list a job's files"),
    ),
    [
      ['vredact jobs content 55e5…', 'id, file name, duration and creation time of each file'],
      ['vredact jobs content 55e5… --json', 'the items as JSON'],
    ],
  ).action(action(async () => (await import('../commands/jobs/content.js')).runJobsContent));
}

export function addDownloadCommand(program: Command): void {
  const download = program
    .command('download')
    .addArgument(positional('<jobId>', 'a job id, from `vredact jobs list` or a redact run', 'job-id'))
    .addArgument(
      positional('[fileName...]', "files to fetch (default: all of the job's files)", 'service-file'),
    )
    .description("download a job's files into a folder")
    .addOption(pathOption('-o, --out-dir <dir>', 'where to write').documentDefault('the current folder'))
    .option('--overwrite', 'replace files that already exist (default: skip them)');
  addConcurrencyOption(download, 'files fetched');
  addProgressOptions(download);
  addExamples(addNetworkOptions(download), [
    ['vredact download 55e5… -o results/', 'every file of the job, into results/'],
    ['vredact download 55e5… call.redacted.wav', 'one file, into the current folder'],
  ]).action(
    action(async () => (await import('../commands/download/download.js')).runDownload, { signals: true }),
  );
}

export function addRedactCommand(program: Command): void {
  const redact = program
    .command('redact')
    .addArgument(
      positional(
        '[inputs...]',
        'files, folders (searched for .wav and .mp3) and quoted glob patterns',
        'path',
      ),
    )
    .description('redact the voices in WAV and MP3 recordings; re-run it to finish a batch')
    .addOption(
      pathOption(
        '--files-from <file>',
        'read more inputs from a file, one path per line ("-": stdin)',
      ).documentDefault('none'),
    )
    .option('-0, --null', '--files-from separates paths with NUL bytes, not lines (find -print0)')
    .addOption(
      pathOption('-o, --out-dir <dir>', 'where redacted WAV files and the journal go')
        .documentDefault('./redacted')
        .documentConfigKey('out-dir'),
    );
  addConcurrencyOption(redact, 'files in flight');
  redact
    .option('--dry-run', 'check and plan only: no network, nothing written')
    .option('--overwrite', 'redo files whose output already exists')
    .option('--no-wait', 'submit, but do not wait for asynchronous jobs (a later run collects them)')
    .addOption(
      option(
        '--wait-timeout <duration>',
        'how long to wait for each asynchronous job: 90s, 30m, 2h',
      ).documentDefault('2h'),
    )
    .addOption(
      option(
        '--min-age <duration>',
        'leave files modified less than this before the run for a later run (still being written): 10m, 1h',
      ).documentDefault('0, off'),
    )
    .addOption(
      option(
        '--max-outage-wait <duration>',
        'how long to wait for a service that answered and then cannot be reached, before the batch stops',
      )
        .documentDefault('10m')
        .documentEnv('VREDACT_MAX_OUTAGE_WAIT'),
    )
    .addOption(
      option(
        '--lock-wait <duration>',
        'how long to wait for another run using the output folder to end, instead of exiting 2 at once',
      )
        .documentDefault('0')
        .documentEnv('VREDACT_LOCK_WAIT'),
    )
    .addOption(
      option('--shard <i/n>', "take only this machine's share i of n of the inputs, 1-based")
        .documentDefault('none, all the inputs')
        .documentEnv('VREDACT_SHARD'),
    )
    .addOption(option('--max-size <bytes>', 'local size limit: 500k, 10MiB, 5MB').documentDefault('10MiB'))
    .addOption(option('--max-duration <seconds>', 'local duration limit').documentDefault('3600'))
    .addOption(
      option(
        '--duration-tolerance <tolerance>',
        "how far a result's duration may differ from its input's: 3s, 10%, max(2s,5%)",
      ).documentDefault('max(2s,5%)'),
    );
  addProgressOptions(redact);
  addVoiceOptions(redact);
  addExamples(addNetworkOptions(redact), [
    ['vredact redact ./calls/*.wav', 'files named by the shell, into ./redacted'],
    ["vredact redact 'calls/**/*.mp3' -o /srv/redacted", 'a quoted pattern, expanded by vredact'],
    ['vredact redact calls/ --gender opposite --model advanced', 'a folder, with a target voice'],
    ["find /srv/rec -name '*.wav' -mtime -1 | vredact redact --files-from -", 'paths from a pipe'],
    ["find /srv/rec -name '*.wav' -print0 | vredact redact -0 --files-from -", 'any names, line breaks too'],
    [
      'vredact redact -q --stats 10m -o /srv/redacted /srv/rec',
      'a cron run: problems and a line every 10 min',
    ],
    ['vredact redact /srv/rec --min-age 10m', 'leave calls still being recorded for the next run'],
    ['vredact redact /mnt/archive --shard 2/3 -o /srv/redacted-2', 'the second of three machines'],
    ['vredact redact calls/ --lock-wait 10m', 'wait up to 10 min for a run already using ./redacted'],
    ['vredact redact calls/ --dry-run', 'what would be sent, skipped and rejected'],
  ]).action(action(async () => (await import('../commands/redact/redact.js')).runRedact, { signals: true }));
}

export function addStatusCommand(program: Command): void {
  const status = program
    .command('status')
    .description("what an output folder's journal says: counts, failed and pending files")
    .addOption(
      pathOption('-o, --out-dir <dir>', 'the output folder of redact')
        .documentDefault('./redacted')
        .documentConfigKey('out-dir'),
    )
    .option('--all', 'list the done files too')
    .option(
      '--manifest',
      'print a CSV record of every done file (input, output, SHA-256s, job id, voice, time)',
    );
  addExamples(status, [
    ['vredact status -o /srv/redacted', 'counts by state, then the problem files with reasons'],
    ['vredact status -o /srv/redacted --all --json', 'every file and its state, for scripts'],
    ['vredact status -o /srv/redacted --manifest > manifest.csv', 'the compliance record'],
  ]).action(action(async () => (await import('../commands/status/status.js')).runStatus));
}
