import { describe, expect, it } from 'vitest';
import { specEventTypes, validateErrorBody, validateResponse, validateStreamEvent } from '../helpers/spec';

// The validator is the yardstick for every other test, so it must itself reject bad shapes.
describe('spec validator', () => {
  it('knows the streaming event types', () => {
    expect(specEventTypes()).toContain('response.output_text.delta');
    expect(specEventTypes()).toContain('response.completed');
  });
  it('rejects an incomplete response object', () => {
    expect(validateResponse({ id: 'resp_1', object: 'response' }).length).toBeGreaterThan(0);
  });
  it('accepts a well-formed delta event and rejects a malformed one', () => {
    const ok = {
      type: 'response.output_text.delta',
      sequence_number: 3,
      item_id: 'msg_1',
      output_index: 0,
      content_index: 0,
      delta: ' hi',
      logprobs: [],
    };
    expect(validateStreamEvent(ok)).toEqual([]);
    expect(validateStreamEvent({ ...ok, sequence_number: 'x' }).length).toBeGreaterThan(0);
    expect(validateStreamEvent({ type: 'response.nope' })).toEqual([
      "no spec schema for event type 'response.nope'",
    ]);
  });
  it('checks error bodies', () => {
    expect(validateErrorBody({ error: { message: 'm', type: 't', param: null, code: null } })).toEqual([]);
    expect(validateErrorBody({ error: { message: 'm' } }).length).toBeGreaterThan(0);
  });
});
