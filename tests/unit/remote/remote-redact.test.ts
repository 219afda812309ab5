/**
 * A remote server that echoes the request's own key (or a header value) gets it replaced by
 * `[redacted]` in its output, as in its errors (issue 38 §3.8): text, reasoning and a tool call's
 * arguments, however the stream splits the secret.
 */
import { describe, expect, it } from 'vitest';
import { StreamRedactor } from '../../../src/common/redact';
import { collect, KEY, rig, usage } from '../../helpers/remote-rig';

const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});

describe('StreamRedactor', () => {
  it('redacts a secret split anywhere, holding back only what could start one', () => {
    const secret = 'sk-123456';
    for (let cut = 0; cut <= 20; cut++) {
      const text = 'key sk-123456 and sk-12 not';
      const r = new StreamRedactor([secret]);
      const out = r.push(text.slice(0, cut)) + r.push(text.slice(cut)) + r.flush();
      expect(out, String(cut)).toBe('key [redacted] and sk-12 not');
    }
    const r = new StreamRedactor([secret]);
    expect(r.push('plain text')).toBe('plain text');
    expect(r.push(' then s')).toBe(' then ');
    expect(r.push('o on')).toBe('so on');
  });
});

describe('RemoteEngine: a server that echoes the key', () => {
  it('has it redacted from text, reasoning and tool calls, split across chunks', async () => {
    const half = KEY.length >> 1;
    const { engine } = rig({
      chunks: [
        delta({ role: 'assistant', reasoning_content: `thinking of ${KEY}` }),
        delta({ content: `your key is ${KEY.slice(0, half)}` }),
        delta({ content: `${KEY.slice(half)}, done` }),
        delta(
          { tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: `{"k":"${KEY}"}` } }] },
          'tool_calls',
        ),
        usage,
      ],
    });
    const chunks = await collect(engine);
    const all = JSON.stringify(chunks);
    expect(all).not.toContain(KEY);
    const text = chunks.flatMap((c) => (c.type === 'text' ? [c.delta] : [])).join('');
    expect(text).toBe('your key is [redacted], done');
    const reasoning = chunks.flatMap((c) => (c.type === 'reasoning' ? [c.delta] : [])).join('');
    expect(reasoning).toBe('thinking of [redacted]');
    expect(chunks.find((c) => c.type === 'tool_call')).toMatchObject({ arguments: '{"k":"[redacted]"}' });
    expect(chunks.at(-1)?.type).toBe('done');
  });
});
