#!/usr/bin/env node
/**
 * The closing line of `.ci/run`: `N passed, N failed`, from vitest's JSON report and the exit status
 * of the test command.
 *
 * A failure is a failure, wherever it happened: a failed, skipped or todo test; a test file that
 * failed without a failed test (it did not load, it collected no tests, a hook threw); an error
 * outside any test; and a command that failed before vitest wrote a report (typecheck, lint, build).
 * vitest's own counts leave the file-level ones out: 27 files that did not load still read
 * "595 passed".
 *
 * @example
 * // node scripts/ci-tally.mjs .ci-results.json "$status"
 * // 27 test files failed without a failing test (did not load, or collected no tests):
 * //   tests/integration/errors.test.ts: Cannot find module …
 * // 595 passed, 27 failed
 */
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

/**
 * Counts a run. `report` is vitest's JSON report (null when there is none), `exitCode` the test
 * command's. Returns the counts and one line per problem that no test count shows.
 */
function tally(report, exitCode) {
  const notes = [];
  if (!report) {
    notes.push('No test report: the test command failed before vitest ran (see its output above).');
    return { passed: 0, failed: 1, notes };
  }
  let failed = report.numFailedTests + report.numPendingTests + report.numTodoTests;
  const broken = report.testResults.filter(
    (file) => file.status === 'failed' && !file.assertionResults.some((t) => t.status === 'failed'),
  );
  if (broken.length > 0) {
    notes.push(
      `${broken.length} test file(s) failed without a failing test (did not load, collected no tests, or a hook threw):`,
      ...broken.map((file) => `  ${relative(process.cwd(), file.name)}: ${firstLine(file.message)}`),
    );
    failed += broken.length;
  }
  if (failed === 0 && (report.success === false || exitCode !== 0)) {
    notes.push(
      `The test command exited ${exitCode} with no failed test: an error outside the tests (see above).`,
    );
    failed = 1;
  }
  return { passed: report.numPassedTests, failed, notes };
}

function firstLine(message) {
  return (message || 'no message').split('\n')[0];
}

const [path = '.ci-results.json', code = '0'] = process.argv.slice(2);
const report = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : null;
const { passed, failed, notes } = tally(report, Number(code));
for (const note of notes) console.log(note);
console.log(`${passed} passed, ${failed} failed`);
