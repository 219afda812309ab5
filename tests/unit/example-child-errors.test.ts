/**
 * The examples' hang guard (tests/examples/child-errors.ts): a synchronous child stopped at its
 * bound says so, and one that fails on its own gives its exit code.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { stalled } from '../examples/child-errors';

const failure = (args: string[], timeout?: number): unknown => {
  try {
    execFileSync(process.execPath, args, { stdio: 'ignore', timeout });
  } catch (err) {
    return err;
  }
  throw new Error('the child succeeded');
};

describe('an example command that fails', () => {
  it('past its bound: stopped, and said so', () => {
    // A child that never ends by itself; the bound is what stops it.
    const err = failure(['-e', 'setInterval(() => {}, 1000)'], 200);
    expect(stalled(err, 60_000)).toBe('it ran past 1 minutes and was stopped');
  });

  it('on its own: its exit code', () => {
    expect(stalled(failure(['-e', 'process.exit(3)']), 60_000)).toBe('exit code 3');
  });
});
