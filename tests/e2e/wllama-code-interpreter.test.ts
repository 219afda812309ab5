/**
 * code_interpreter with real inference, in Chromium through the real service worker: llama.cpp
 * (wllama) runs the tiny test GGUF (random weights, Llama 3 vocabulary), forced by `tool_choice:
 * {type: 'code_interpreter'}` to call `python`, whose arguments llama.cpp samples under the grammar
 * of `{"code": string}`. The code is gibberish, and it runs: in Pyodide, in the sandbox worker the
 * engine worker starts. So what is checked is the shape: the call and its code come from the model,
 * the item's events in OpenAI's order, logs that are what Python says about that code (the same
 * code run here in Node's Pyodide gives the same text: a Python error is a `completed` call with
 * its traceback in the logs, as OpenAI's are), and the loop going on to a next engine pass. On the
 * same page, the scripted model's answer naming a file its code wrote gets its
 * `container_file_citation`s through the service worker too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_CALL_EVENTS, oneCodeDeltaStep } from '../helpers/code-call-events';
import { InProcessPython } from '../helpers/python-runner-double';
import { type AppSession, openApp } from './harness';
import { streamResponse, streamResponseTimed } from './python-responses.page';

const options = {
  wllama: { stallTimeoutMs: 20_000, models: [{ id: 'tiny', url: '/test-models/intab-tiny-random.gguf' }] },
  codeInterpreter: { timeoutMs: 20_000 },
};
const path = `/tests/e2e/pages/options.html#${encodeURIComponent(JSON.stringify(options))}`;

let app: AppSession & { pageErrors: string[] };
beforeAll(async () => {
  app = await openApp({ path, testPages: true });
}, 240_000);
afterAll(() => app?.close());

type Json = Record<string, unknown>;
type CodeCall = {
  id: string;
  type: string;
  code: string;
  container_id: string;
  status: string;
  outputs: Json[];
};

const TOOL = { type: 'code_interpreter', container: { type: 'auto' } };

describe('code_interpreter with the wllama test model', () => {
  it('a forced call: the model writes the code, it runs in the sandbox, its logs go to the next pass', async () => {
    const started = Date.now();
    const { types, events, reads, at } = await app.page.evaluate(streamResponseTimed, {
      model: 'tiny',
      input: 'Add the numbers from 1 to 10 with Python.',
      tools: [TOOL],
      tool_choice: { type: 'code_interpreter' },
      include: ['code_interpreter_call.outputs'],
      max_output_tokens: 64,
      temperature: 0,
    });
    console.info(`forced code_interpreter turn: ${Date.now() - started} ms, ${types.length} events`);
    const final = events.at(-1)?.response as { status: string; output: Json[]; usage: Json; tools: Json[] };
    expect(['response.completed', 'response.incomplete']).toContain(types.at(-1));
    expect(final.tools).toEqual([TOOL]);

    // The model's call, first: forced, so the reply opens with it.
    const call = final.output[0] as CodeCall;
    expect(call).toMatchObject({
      id: expect.stringMatching(/^ci_/),
      type: 'code_interpreter_call',
      container_id: expect.stringMatching(/^cntr_/),
      status: 'completed',
    });
    expect(typeof call.code).toBe('string');
    expect(call.code.trim()).not.toBe('');

    // Its events, exactly in OpenAI's order, the code streamed as deltas that join to it.
    const own = events.filter((e) => e.item_id === call.id || (e.item as Json | undefined)?.id === call.id);
    expect(oneCodeDeltaStep(own.map((e) => e.type as string))).toEqual([...CODE_CALL_EVENTS]);
    expect(own[0]?.item).toMatchObject({ code: '', status: 'in_progress', outputs: null });
    const deltas = own.filter((e) => e.type === 'response.code_interpreter_call_code.delta');
    expect(deltas.map((e) => e.delta).join('')).toBe(call.code);
    expect(own.find((e) => e.type === 'response.code_interpreter_call_code.done')?.code).toBe(call.code);

    // The code went out as the model wrote it: read from the body before the call was whole (its
    // `.done`, sent once the call parsed). At temperature 0 this model's code here is one token
    // (`":@"`), so one delta; the next test has a code of many tokens.
    const when = (e: Json) => events.indexOf(e);
    const done = own.find((e) => e.type === 'response.code_interpreter_call_code.done') as Json;
    console.info(
      `code deltas ${JSON.stringify(deltas.map((e) => e.delta))} in reads ${JSON.stringify(deltas.map((e) => reads[when(e)]))} ` +
        `(first at ${at[when(deltas[0] as Json)]?.toFixed(0)} ms); .done in read ${reads[when(done)]} at ${at[when(done)]?.toFixed(0)} ms`,
    );
    expect(reads[when(deltas[0] as Json)]).toBeLessThan(reads[when(done)] as number);
    for (const e of own.slice(0, -1)) expect(e.output_index).toBe(0);

    // The logs are Python's own answer to that code: the same run in Pyodide here says the same.
    const python = new InProcessPython();
    const here = await python.run('check', call.code, []);
    const logs = `${here.stdout}${here.stderr}`;
    console.info(
      `the model's code: ${JSON.stringify(call.code)}; Python said: ${JSON.stringify(logs.slice(-200))}`,
    );
    expect(call.outputs).toEqual(logs === '' ? [] : [{ type: 'logs', logs }]);

    // The loop went on: a next pass (forced no more) wrote after the call, within the token budget.
    expect(final.output.length).toBeGreaterThanOrEqual(2);
    expect(['message', 'code_interpreter_call']).toContain(final.output[1]?.type);
    expect(final.usage.output_tokens).toBeLessThanOrEqual(64);
    expect(app.pageErrors).toEqual([]);
  }, 300_000);
});

describe('code deltas from the wllama test model, as it writes', () => {
  it('a code of many tokens streams delta by delta; cut by max_output_tokens, the call is incomplete', async () => {
    // At temperature 0 this prompt gets a code the model never closes (it repeats a token), so the
    // call runs into the token limit: every delta is the model's, sent as its token came.
    const { types, events, reads, at } = await app.page.evaluate(streamResponseTimed, {
      model: 'tiny',
      input: 'Use Python.',
      tools: [TOOL],
      tool_choice: { type: 'code_interpreter' },
      max_output_tokens: 48,
      temperature: 0,
    });
    expect(types.at(-1)).toBe('response.incomplete');
    const deltas = events.filter((e) => e.type === 'response.code_interpreter_call_code.delta');
    const done = events.find((e) => e.type === 'response.output_item.done')?.item as CodeCall;
    const deltaReads = deltas.map((e) => reads[events.indexOf(e)] as number);
    const times = deltas.map((e) => at[events.indexOf(e)] as number);
    console.info(
      `${deltas.length} code deltas in ${new Set(deltaReads).size} reads over ${((times.at(-1) ?? 0) - (times[0] ?? 0)).toFixed(0)} ms: ` +
        JSON.stringify(deltas.map((e) => e.delta)),
    );
    expect(deltas.length).toBeGreaterThan(10);
    // One read per few tokens at most: they were sent apart, as generated, not together at the end.
    expect(new Set(deltaReads).size).toBeGreaterThan(deltas.length / 2);
    expect(deltas.map((e) => e.delta).join('')).toBe(done.code);
    expect(done).toMatchObject({ type: 'code_interpreter_call', status: 'incomplete', outputs: null });
    expect(types).not.toContain('response.code_interpreter_call.interpreting');
    expect(app.pageErrors).toEqual([]);
  }, 120_000);
});

describe('container_file_citation through the service worker (scripted model)', () => {
  it('cites the file the code wrote where the answer names it, announced in the stream', async () => {
    const code =
      "open('/mnt/data/sum.txt', 'w').write(str(sum(range(10))))\nprint('see sum.txt, not other.txt')";
    const { events } = await app.page.evaluate(streamResponse, {
      model: 'scripted',
      input: `!python ${code}`,
      tools: [TOOL],
    });
    const final = events.at(-1)?.response as { status: string; output: Json[] };
    expect(final.status).toBe('completed');
    const part = ((final.output.at(-1)?.content as Json[]) ?? [])[0] as { text: string; annotations: Json[] };
    const cited = part.annotations.map((a) => [
      part.text.slice(a.start_index as number, a.end_index as number),
      a.filename,
    ]);
    expect(cited).toEqual([
      ['sum.txt', 'sum.txt'],
      ['/mnt/data/sum.txt', 'sum.txt'],
    ]);
    const call = final.output[0] as CodeCall;
    for (const a of part.annotations)
      expect(a).toMatchObject({ type: 'container_file_citation', container_id: call.container_id });
    const added = events.filter((e) => e.type === 'response.output_text.annotation.added');
    expect(added.map((e) => e.annotation)).toEqual(part.annotations);
    const content = await app.page.evaluate(
      async ([box, id]) => (await fetch(`/v1/containers/${box}/files/${id}/content`)).text(),
      [call.container_id, part.annotations[0]?.file_id as string] as const,
    );
    expect(content).toBe('45');
  }, 120_000);
});
