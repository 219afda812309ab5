/**
 * The `mcp` tool's rules without network: `allowed_tools`, `require_approval` (approval is the
 * default, and only an explicit `never` waives it), reachable server URLs, and the names tools are
 * offered by (always valid function names, never clashing).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isAllowed,
  type McpToolInfo,
  needsApproval,
  offeredName,
  serverUrlProblem,
} from '../../../src/core/hosted/mcp-policy';

const echo: McpToolInfo = { name: 'echo', input_schema: {}, annotations: { readOnlyHint: true } };
const del: McpToolInfo = { name: 'delete', input_schema: {} };

describe('require_approval', () => {
  it('is required by default, by always, and for tools a filter does not waive', () => {
    expect(needsApproval({}, echo)).toBe(true);
    expect(needsApproval({ require_approval: null }, echo)).toBe(true);
    expect(needsApproval({ require_approval: 'always' }, echo)).toBe(true);
    expect(needsApproval({ require_approval: 'never' }, del)).toBe(false);
    const f = { require_approval: { never: { tool_names: ['echo'] } } };
    expect(needsApproval(f, echo)).toBe(false);
    expect(needsApproval(f, del)).toBe(true);
    expect(needsApproval({ require_approval: { never: { read_only: true } } }, echo)).toBe(false);
    expect(needsApproval({ require_approval: { never: { read_only: true } } }, del)).toBe(true);
    // An empty filter waives nothing.
    expect(needsApproval({ require_approval: { never: {} } }, del)).toBe(true);
    expect(needsApproval({ require_approval: { always: { tool_names: ['echo'] } } }, del)).toBe(true);
  });

  it('property: a tool skips approval only when never names it (by name or read-only) — 200 runs', () => {
    const tool = fc.record({ name: fc.constantFrom('a', 'b', 'c'), ro: fc.boolean() });
    const filter = fc.record(
      { tool_names: fc.subarray(['a', 'b', 'c']), read_only: fc.boolean() },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        tool,
        fc.option(filter, { nil: undefined }),
        fc.option(filter, { nil: undefined }),
        (t, never, always) => {
          const info = { name: t.name, input_schema: {}, annotations: { readOnlyHint: t.ro } };
          const waived = !needsApproval({ require_approval: { never, always } }, info);
          const named = never?.tool_names === undefined || never.tool_names.includes(t.name);
          const ro = never?.read_only === undefined || never.read_only === t.ro;
          const states =
            never !== undefined && (never.tool_names !== undefined || never.read_only !== undefined);
          expect(waived).toBe(states && named && ro);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('allowed_tools', () => {
  it('allows all when absent, a list by name, a filter by name and readOnlyHint', () => {
    expect(isAllowed({}, del)).toBe(true);
    expect(isAllowed({ allowed_tools: ['echo'] }, echo)).toBe(true);
    expect(isAllowed({ allowed_tools: ['echo'] }, del)).toBe(false);
    expect(isAllowed({ allowed_tools: { read_only: true } }, echo)).toBe(true);
    expect(isAllowed({ allowed_tools: { read_only: true } }, del)).toBe(false);
    expect(isAllowed({ allowed_tools: { tool_names: ['delete'], read_only: true } }, del)).toBe(false);
  });
});

describe('server_url', () => {
  it('takes https and http on localhost only, never the app origin', () => {
    expect(serverUrlProblem('https://mcp.example/mcp', 'https://app.example')).toBeNull();
    expect(serverUrlProblem('http://localhost:3000/mcp', 'https://app.example')).toBeNull();
    expect(serverUrlProblem('http://127.0.0.1:3000/mcp', null)).toBeNull();
    expect(serverUrlProblem('http://mcp.example/mcp', null)).toContain('mixed content');
    expect(serverUrlProblem('ftp://mcp.example/', null)).not.toBeNull();
    expect(serverUrlProblem('https://app.example/mcp', 'https://app.example')).toContain('own origin');
  });
});

describe('offered names', () => {
  it('property: always a valid function name, never one already taken — 300 runs', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-zA-Z0-9_-]{1,64}$/),
        fc.string({ maxLength: 100 }),
        fc.uniqueArray(fc.string({ maxLength: 70 }), { maxLength: 5 }),
        (label, name, takenList) => {
          const taken = new Set(takenList);
          const got = offeredName(label, name, taken);
          expect(got).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
          expect(taken.has(got)).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});
