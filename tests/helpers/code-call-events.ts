/**
 * The events of one code_interpreter call, in the order of OpenAI's capture (issue 26), with a
 * run of code deltas (the code streams as the model writes it) counted as one step.
 */
export const CODE_CALL_EVENTS = [
  'response.output_item.added',
  'response.code_interpreter_call.in_progress',
  'response.code_interpreter_call_code.delta',
  'response.code_interpreter_call_code.done',
  'response.code_interpreter_call.interpreting',
  'response.code_interpreter_call.completed',
  'response.output_item.done',
] as const;

/** `types` with each run of consecutive code deltas kept as its first. */
export function oneCodeDeltaStep(types: readonly string[]): string[] {
  return types.filter((t, i) => !(t === CODE_CALL_EVENTS[2] && types[i - 1] === t));
}
