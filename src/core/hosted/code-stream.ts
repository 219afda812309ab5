import type { ResponseCodeInterpreterToolCall } from 'openai/resources/responses/responses';
import type { RunOutput } from './hosted-events';
import { JsonFieldStream } from './json-string-stream';

/**
 * A `code_interpreter_call` whose code streams while the model writes it: the item is added and
 * `in_progress` sent when the call begins, then each piece of its `code` goes out as
 * `response.code_interpreter_call_code.delta` as the call's arguments arrive. The whole call, once
 * parsed, runs it ({@link runCodeInterpreterCall} with this as `live`), which sends what is left.
 *
 * @example
 * const live = new LiveCodeCall(run.hostedOutput(), newPythonId('ci'), containerId);
 * live.push('{"code": "print(');  // a code delta 'print('
 */
export class LiveCodeCall {
  readonly item: ResponseCodeInterpreterToolCall;
  readonly outputIndex: number;
  /** The code sent as deltas so far. */
  sent = '';
  private readonly field = new JsonFieldStream('code');

  constructor(
    private readonly out: RunOutput,
    id: string,
    containerId: string,
  ) {
    this.item = {
      id,
      type: 'code_interpreter_call',
      status: 'in_progress',
      code: '',
      container_id: containerId,
      outputs: null,
    };
    this.outputIndex = out.addItem(this.item);
    out.send({ type: 'response.code_interpreter_call.in_progress', ...this.at() });
  }

  /** Takes the next piece of the call's arguments (JSON text) and sends the code it adds. */
  push(argumentsDelta: string): void {
    const delta = this.field.push(argumentsDelta);
    if (delta === '') return;
    this.sent += delta;
    // The item in the response holds the code so far (a background response read while it runs).
    this.item.code = this.sent;
    this.out.send({ type: 'response.code_interpreter_call_code.delta', ...this.at(), delta });
  }

  /**
   * Ends a call that never completed (its text parsed into no call, or the pass ended first): its
   * code is done as far as it came, and the item `failed` (`incomplete`: the run was stopped), with
   * no code run.
   */
  abandon(status: 'failed' | 'incomplete'): void {
    this.item.code = this.sent;
    this.out.send({ type: 'response.code_interpreter_call_code.done', ...this.at(), code: this.sent });
    this.item.status = status;
    this.out.send({
      type: 'response.output_item.done',
      output_index: this.outputIndex,
      item: structuredClone(this.item),
    });
  }

  private at(): { item_id: string; output_index: number } {
    return { item_id: this.item.id, output_index: this.outputIndex };
  }
}
