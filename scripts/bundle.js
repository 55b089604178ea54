/**
 * Bundles the compiled command line (dist/cli.js and the modules it imports, vredact's and its
 * libraries') into dist/cli.bundle.js, with the lazily imported parts split into chunks beside it.
 *
 * Why: a command spent more of its start resolving and compiling about 180 module files than doing
 * its work. On Node.js 20 the bundle starts an empty `vredact redact` in about 0.16 s of CPU instead
 * of 0.22 s; Node.js 22 and newer also keep the compiled code (see bin/vredact.cjs).
 *
 * The files tsc writes stay: the audio worker thread and the tests load them. Every output file
 * lies directly in dist/, as src's top-level modules do, so an `import.meta.url`-relative path
 * written in a top-level module means the same file bundled or not (see src/dist-files.ts).
 * Libraries that vredact loads with `createRequire` (undici, string-width) stay in node_modules.
 */
import { build } from 'esbuild';

await build({
  entryPoints: { 'cli.bundle': 'dist/cli.js' },
  outdir: 'dist',
  chunkNames: 'cli.chunk-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  // The bundled CommonJS libraries (commander, fast-glob) call require() for Node.js's own modules.
  banner: {
    js: "import { createRequire as vredactCreateRequire } from 'node:module'; const require = vredactCreateRequire(import.meta.url);",
  },
  legalComments: 'eof',
  logLevel: 'warning',
});
