/**
 * The service worker's deadline on an engine answer must leave the core room to send its own early
 * headers first: a 504 from the service worker is retried by the openai SDK, so a long load or
 * generation would run again from the start.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_JSON_HOLD_MS } from '../../../src/core/server';
import { SW_TIMING } from '../../../sw/timing';

describe('SW_TIMING.handleMs', () => {
  it('is comfortably longer than the core holds a JSON answer, and under Chromium’s 5-minute kill', () => {
    expect(SW_TIMING.handleMs).toBeGreaterThanOrEqual(3 * DEFAULT_JSON_HOLD_MS);
    expect(SW_TIMING.handleMs).toBeLessThan(300_000);
  });
});
