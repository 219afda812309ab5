import { clip } from '../../common/api-error';
import { fragmentTokens, resolveTokens } from '../../common/json-pointer';
import { pace } from '../../common/pace';
import { regexProblem } from './schema-patterns';

/**
 * A request's JSON Schema as a graph: every subschema met once, in one walk that never recurses (a
 * schema nested to the body's limit, or a chain of thousands of `$ref`s, cannot overflow the stack),
 * with its `$ref` resolved to the subschema it names. The walk also finds what makes a schema unusable
 * on its face: a pattern RE2 cannot run, a `$ref` that leads nowhere. The analyses of `schema-chains.ts`
 * and `schema-finite.ts` then run over the graph in time linear in its size.
 */

export type Schema = Record<string, unknown>;
/** A path as a chain to the root: a walk over thousands of subschemas builds no arrays. */
export type Path = { key: string | number; up: Path } | null;
/** What is wrong with a schema and where (the keys from its root), worded for OpenAI's message. */
export type Problem = { at: (string | number)[]; why: string };

/** A subschema: where a value is judged. */
export interface SchemaNode {
  /** Its place in walk order (index into {@link SchemaGraph.nodes}). */
  readonly id: number;
  readonly schema: Schema;
  /** Where the walk first met it (for a `$ref` target met only through `$ref`, the pointer's path). */
  readonly at: Path;
  /** What its local `$ref` names: a node, a boolean schema, or undefined without a `$ref`. */
  ref: SchemaNode | boolean | undefined;
}

/** The walk's result: every subschema, the root first. */
export interface SchemaGraph {
  /** The root: a node, a boolean schema, or null for a root that is neither (nothing to judge). */
  root: SchemaNode | boolean | null;
  nodes: SchemaNode[];
  /** Each subschema object's node. */
  byObject: Map<Schema, SchemaNode>;
}

const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
const SCHEMA_ONE = [
  'items',
  'additionalItems',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
];

/**
 * Walks `root` and every subschema in it (definitions too, even those nothing refers to yet), and
 * every `$ref` target. Returns the graph, or the first problem in document order: a pattern (or
 * `patternProperties` key) RE2 cannot compile, or a local `$ref` that does not resolve.
 *
 * @example
 * (await walkSchema({ properties: { a: { $ref: '#/$defs/A' } } })).problem
 * // → { at: ['properties', 'a'], why: "'$ref' '#/$defs/A' does not resolve to a schema in this document" }
 */
export async function walkSchema(root: unknown): Promise<{ graph: SchemaGraph; problem: Problem | null }> {
  const graph: SchemaGraph = { root: null, nodes: [], byObject: new Map() };
  const targets = new Map<SchemaNode, unknown>();
  // Depth-first, children pushed in reverse: problems are met in the order a recursive walk met them.
  const stack: { schema: unknown; at: Path }[] = [{ schema: root, at: null }];
  const later: { schema: unknown; at: Path }[] = [];
  for (let next = stack.pop(); next; next = stack.pop() ?? later.pop()) {
    const { schema: s, at } = next;
    if (!isObject(s) || graph.byObject.has(s)) continue;
    // A few hundred subschemas (and their patterns, compiled here) at a time: pace() lets the loop turn.
    if (graph.nodes.length % PACE_EVERY === 0) await pace();
    const node: SchemaNode = { id: graph.nodes.length, schema: s, at, ref: undefined };
    graph.nodes.push(node);
    graph.byObject.set(s, node);
    const problem = ownProblem(s, at);
    if (problem) return { graph, problem };
    if (typeof s.$ref === 'string' && s.$ref.startsWith('#')) {
      const keys = fragmentTokens(s.$ref);
      const target = keys && resolve(root, keys);
      if (!keys || target === undefined)
        return {
          graph,
          problem: {
            at: toArray(at),
            why: `'$ref' '${clip(s.$ref, 100)}' does not resolve to a schema in this document`,
          },
        };
      targets.set(node, target);
      if (isObject(target) && !graph.byObject.has(target))
        later.push({ schema: target, at: fromArray(keys) });
    }
    const children = childrenOf(s, at);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as (typeof children)[number]);
  }
  for (const [node, target] of targets)
    node.ref = typeof target === 'boolean' ? target : graph.byObject.get(target as Schema);
  graph.root = typeof root === 'boolean' ? root : (graph.nodes[0] ?? null);
  return { graph, problem: null };
}

/** How many subschemas the analyses handle between two calls to pace(). */
export const PACE_EVERY = 256;

const SAME_VALUE_KEYS = ['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentSchemas'];

/** The subschemas a node judges the same value against: its `$ref`, `allOf`, `anyOf`, `not`, … */
export function sameValueEdges(graph: SchemaGraph, node: SchemaNode): (SchemaNode | boolean)[] {
  const s = node.schema;
  const out: (SchemaNode | boolean)[] = [];
  // Most subschemas (the leaves) have none: no walk over the keys below.
  if (node.ref === undefined && !SAME_VALUE_KEYS.some((k) => s[k] !== undefined)) return out;
  const add = (sub: unknown) => {
    if (typeof sub === 'boolean') out.push(sub);
    else if (isObject(sub)) {
      const found = graph.byObject.get(sub);
      if (found) out.push(found);
    }
  };
  if (node.ref !== undefined) out.push(node.ref);
  for (const key of ['allOf', 'anyOf', 'oneOf']) for (const sub of asList(s[key])) add(sub);
  for (const key of ['not', 'if', 'then', 'else']) add(s[key]);
  if (isObject(s.dependentSchemas)) for (const sub of Object.values(s.dependentSchemas)) add(sub);
  return out;
}

/** A subschema of `s` as a node, or the boolean schema it is; undefined for anything else. */
export function nodeOf(graph: SchemaGraph, sub: unknown): SchemaNode | boolean | undefined {
  if (typeof sub === 'boolean') return sub;
  return isObject(sub) ? graph.byObject.get(sub) : undefined;
}

/** Patterns and `patternProperties` keys must compile for RE2. */
function ownProblem(s: Schema, at: Path): Problem | null {
  if (typeof s.pattern === 'string') {
    const why = regexProblem(s.pattern);
    if (why) return { at: toArray(at), why: `'pattern' is not a regular expression intab can run: ${why}` };
  }
  if (isObject(s.patternProperties)) {
    for (const key of Object.keys(s.patternProperties)) {
      const why = regexProblem(key);
      if (why)
        return {
          at: [...toArray(at), 'patternProperties'],
          why: `'${clip(key, 64)}' is not a regular expression intab can run: ${why}`,
        };
    }
  }
  return null;
}

function childrenOf(s: Schema, at: Path): { schema: unknown; at: Path }[] {
  const out: { schema: unknown; at: Path }[] = [];
  for (const key of SCHEMA_MAPS) {
    const map = s[key];
    if (!isObject(map)) continue;
    const parent = { key, up: at };
    for (const name of Object.keys(map)) out.push({ schema: map[name], at: { key: name, up: parent } });
  }
  for (const key of SCHEMA_LISTS) {
    const list = s[key];
    if (!Array.isArray(list)) continue;
    const parent = { key, up: at };
    list.forEach((sub, i) => {
      out.push({ schema: sub, at: { key: i, up: parent } });
    });
  }
  for (const key of SCHEMA_ONE) if (isObject(s[key])) out.push({ schema: s[key], at: { key, up: at } });
  return out;
}

/** The keys from the root to `path`. */
export function toArray(path: Path): (string | number)[] {
  const out: (string | number)[] = [];
  for (let p = path; p; p = p.up) out.push(p.key);
  return out.reverse();
}

function fromArray(keys: (string | number)[]): Path {
  let path: Path = null;
  for (const key of keys) path = { key, up: path };
  return path;
}

/** What a local `$ref`'s tokens name: a schema (an object or a boolean), else undefined. */
function resolve(root: unknown, keys: string[]): unknown {
  const node = resolveTokens(root, keys);
  return isObject(node) || typeof node === 'boolean' ? node : undefined;
}

export function isObject(v: unknown): v is Schema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function asList(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
