#!/usr/bin/env node
// CommonJS on purpose. Node.js 20 reads an ES module entry through libuv's thread pool, which starts
// the pool at its default size before the entry's first line runs, so the size set below was ignored
// there (4 threads, not 64); a CommonJS entry is read synchronously, and the pool starts at the
// bundle's import. Written for any Node.js (no newer syntax), so that an old Node.js reads the check
// below and prints one line instead of failing somewhere deeper.
var nodeModule = require('node:module');
var v8 = require('node:v8');
var REQUIRED = [20, 19];
var found = process.versions.node.split('.').map(Number);
if (found[0] < REQUIRED[0] || (found[0] === REQUIRED[0] && found[1] < REQUIRED[1])) {
  process.stderr.write(
    'vredact needs Node.js ' +
      REQUIRED.join('.') +
      ' or newer; this is Node.js v' +
      process.versions.node +
      '\n',
  );
  process.exit(2);
}

// Every output is fsynced, and fsync, open, rename and stat all queue on libuv's thread pool: at
// its default of 4 threads, 32 uploads in flight wait on each other's disk writes (where a flush
// takes 10 ms, 480 files at -c 32 took 2.5 s instead of 1.9 s). It must be set before the pool's
// first use (the import below reads files through it); the user's value wins.
if (!process.env.UV_THREADPOOL_SIZE) process.env.UV_THREADPOOL_SIZE = '64';

// NO_COLOR and FORCE_COLOR both set (FORCE_COLOR=1 in a profile, NO_COLOR=1 for one run): vredact's
// colour follows NO_COLOR (a non-empty one; an empty one counts as unset), and Node.js, asked for a
// terminal's colours by a library, printed a two-line warning about the pair on stderr. The one that
// loses is dropped before anything asks.
if (process.env.FORCE_COLOR !== undefined && process.env.NO_COLOR !== undefined) {
  if (process.env.NO_COLOR !== '') delete process.env.FORCE_COLOR;
  else delete process.env.NO_COLOR;
}

// V8 doubles its young generation (where new objects start) each time enough of them outlive a
// collection, up to 32 MB on Node.js 20 and 22 and 128 MB on Node.js 24. A run over 100,000 files
// keeps a plan and the journals' records for its whole length, so the young generation reaches its
// maximum and stays there: 30 to 120 MB more peak RSS, as the objects that die young die as young in
// a small one. The flag is read when the space would grow, so it can be set now. The price is more
// frequent young collections: at 100,000 files a re-run or a dry run was no slower (the collections
// are small); a first run against a stand-in that answers at once spent up to a tenth more CPU.
// A semi-space flag of the user's own (NODE_OPTIONS, node's arguments) is left to decide.
var userFlags = (process.env.NODE_OPTIONS || '') + ' ' + process.execArgv.join(' ');
if (!/semi[-_]space/.test(userFlags)) v8.setFlagsFromString('--semi-space-growth-factor=1');

// After a full collection V8 lets the heap grow to as much as four times what survived it before it
// collects again. At archive scale that multiplies real memory: over 1,000,000 inputs a dry run keeps
// about 300 MB (the plan, and the found files while it is made) and peaked at 650 to 760 MB of RSS.
// At most twice what survived (growing factor 2) it peaked at 510 MB; at 100,000 inputs a re-run
// spent the same CPU (medians of 3) in 120 MB instead of 128. Read at each collection, so it can be
// set now; a growing flag of the user's own is left to decide.
if (!/heap[-_]growing/.test(userFlags)) v8.setFlagsFromString('--heap-growing-percent=100');

// Node.js 22.8+ can keep the code it compiles on disk (in its default folder under the system's
// temporary folder) and reuse it at the next start: most of a command's start-up is compiling
// vredact's and its libraries' modules. NODE_DISABLE_COMPILE_CACHE=1 turns it off; older Node.js
// has no such function and compiles every time.
if (typeof nodeModule.enableCompileCache === 'function') nodeModule.enableCompileCache();

var args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // Answered without loading the command tree, so it costs about a bare `node` start. Its stdout
  // fails as any command's does: quietly for a reader that has gone (`vredact --version | true`).
  Promise.all([import('../dist/version.js'), import('../dist/output/stdout-failure.js')]).then(function (m) {
    m[1].watchStdio();
    process.stdout.write(m[0].versionLine() + '\n');
  });
} else {
  // An interrupt, SIGTERM or hangup that comes while the modules load (a few tenths of a second) is
  // held, not obeyed: a command that takes the signals over (redact, download, sandbox) then follows
  // its own rule for it, as if it had come a moment later (src/signals.ts); any other command
  // releases it, and is ended by it as soon as it starts. Before, it killed the run at once by the
  // signal's default action. Once released, this listener stays until a signal comes, then lets go
  // and raises it again: taken off at once, it would stop Node.js watching the signal and lose one
  // caught but not yet handed to it (the modules load without a turn of the event loop).
  var held = [];
  var holdSignal = function (signal) {
    if (holdSignal.released) {
      ['SIGINT', 'SIGTERM', 'SIGHUP'].forEach(function (each) {
        process.off(each, holdSignal);
      });
      process.kill(process.pid, signal);
    } else if (held.indexOf(signal) < 0) held.push(signal);
  };
  holdSignal.heldSignals = held;
  holdSignal.released = false;
  ['SIGINT', 'SIGTERM', 'SIGHUP'].forEach(function (signal) {
    process.on(signal, holdSignal);
  });
  import('../dist/cli.bundle.js').then(function (m) {
    return m.main(process.argv);
  });
}
