import type { SerializedError } from 'vitest';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints the one closing line CI reads: `N passed, M failed`. An error raised outside any test (an
 * uncaught exception, an unhandled rejection) fails the run in vitest but belongs to no test: each
 * counts as one failure here, or the line would read "0 failed" over a run that failed.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError> = [],
  ): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      // A file that failed to load counts as a failure even with no tests in it.
      if (mod.state() === 'failed' && [...mod.children.allTests()].length === 0) failed++;
    }
    const errors = unhandledErrors.length > 0 ? ` (${unhandledErrors.length} outside any test)` : '';
    process.stdout.write(
      `\n${passed} passed, ${failed} failed${errors}${skipped ? `, ${skipped} skipped` : ''}\n`,
    );
  }
}
