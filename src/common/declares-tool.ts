/**
 * Whether `tools`, a request's unchecked `tools` array, holds an entry whose `type` passes `is`: how
 * a route tells, before its synchronous parse, which lazily loaded tool code that parse needs.
 * Linear in the tools.
 *
 * @example
 * declaresTool(json.tools, (type) => type === 'custom'); // true for [{ type: 'custom', name: 'sql' }]
 */
export function declaresTool(tools: unknown, is: (type: unknown) => boolean): boolean {
  return (
    Array.isArray(tools) &&
    tools.some((t) => typeof t === 'object' && t !== null && is((t as { type?: unknown }).type))
  );
}
