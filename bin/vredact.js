#!/usr/bin/env node
import * as nodeModule from 'node:module';

// Written for any Node.js that can load an ES module (no top-level await, no newer syntax), so
// that an old Node.js reads this check and prints one line instead of failing somewhere deeper.
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
// its default of 4 threads, 32 uploads in flight wait on each other's disk writes. It must be set
// before the pool's first use (the import below reads files through it); the user's value wins.
if (!process.env.UV_THREADPOOL_SIZE) process.env.UV_THREADPOOL_SIZE = '64';

// Node.js 22.8+ can keep the code it compiles on disk (in its default folder under the system's
// temporary folder) and reuse it at the next start: most of a command's start-up is compiling
// vredact's and its libraries' modules. NODE_DISABLE_COMPILE_CACHE=1 turns it off; older Node.js
// has no such function and compiles every time.
if (typeof nodeModule.enableCompileCache === 'function') nodeModule.enableCompileCache();

var args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // Answered without loading the command tree, so it costs about a bare `node` start.
  import('../dist/version.js').then(function (m) {
    process.stdout.write(m.versionLine() + '\n');
  });
} else {
  import('../dist/cli.js').then(function (m) {
    return m.main(process.argv);
  });
}
