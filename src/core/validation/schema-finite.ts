import { clip } from '../../common/api-error';
import { pace } from '../../common/pace';
import { isType } from './json-schema-check';
import {
  asList,
  isObject,
  nodeOf,
  PACE_EVERY,
  type Problem,
  type Schema,
  type SchemaGraph,
  type SchemaNode,
  toArray,
} from './schema-graph';

/**
 * Whether some value, finite as every JSON value is, can match a request's schema. A subschema can
 * be met when its own keywords agree (no `minimum` above its `maximum`, a non-empty `enum`, …) and
 * what it needs can be met: every required property's schema, every `allOf` branch, one `anyOf`
 * branch, its `$ref`, the items its `minItems` demands. That is a least fixpoint, found as a grammar's
 * productive symbols are: each subschema counts what it still waits for, and a worklist releases the
 * subschemas that wait on one just found satisfiable; linear in the graph. What is never released
 * has no finite instance: an object that requires a property whose schema is the object again was a
 * 500 after generation ("output does not match strict schema"), and is a 400 here.
 *
 * It only claims what holds: a subschema it cannot judge counts as satisfiable. (`schema-chains.ts`
 * has refused loops among same-value schemas first, so every wait here is on a smaller value.)
 *
 * @example
 * await finiteProblem((await walkSchema({ type: 'object', properties: { a: { $ref: '#' } }, required: ['a'] })).graph)
 * // → { at: ['properties', 'a'], why: "no value can match: '$ref' '#' leads back to …" }
 */
export async function finiteProblem(graph: SchemaGraph): Promise<Problem | null> {
  const root = graph.root;
  if (root === false) return { at: [], why: 'no value can match: the schema is false' };
  if (root === null || root === true) return null;
  const needs: Needs[] = [];
  for (const node of graph.nodes) {
    needs.push(needsOf(graph, node));
    if (needs.length % PACE_EVERY === 0) await pace();
  }
  await pace();
  const met = satisfiable(graph, needs);
  return met[root.id] ? null : explain(root, needs, met);
}

type Target = SchemaNode | boolean;
/** One thing a subschema needs: all of `one`, or (`anyOf`, `oneOf`) one of several. */
type Need =
  | { kind: 'one'; target: Target; via: (string | number)[] }
  | { kind: 'any'; options: { target: Target; via: (string | number)[] }[] };
type Needs = { local: string | null; list: Need[] };

/** The least fixpoint: which subschemas some finite value can meet. */
function satisfiable(graph: SchemaGraph, needs: Needs[]): Uint8Array {
  const n = graph.nodes.length;
  const met = new Uint8Array(n);
  const waiting = new Int32Array(n);
  // Needs are numbered flat (`first[node] + i`), so that one array holds who waits and what is done.
  const first = new Int32Array(n + 1);
  for (let id = 0; id < n; id++) first[id + 1] = (first[id] as number) + (needs[id] as Needs).list.length;
  const owner = new Int32Array(first[n] as number);
  const done = new Uint8Array(first[n] as number);
  // For each subschema, the needs that wait on it.
  const waiters: (number[] | undefined)[] = new Array(n);
  const ready: number[] = [];
  for (let id = 0; id < n; id++) {
    const own = needs[id] as Needs;
    let count = 0;
    own.list.forEach((need, i) => {
      const flat = (first[id] as number) + i;
      owner[flat] = id;
      const targets = need.kind === 'one' ? [need.target] : need.options.map((o) => o.target);
      if (targets.includes(true)) return;
      count++;
      for (const t of targets) {
        if (typeof t === 'boolean') continue;
        const list = waiters[t.id] ?? [];
        waiters[t.id] = list;
        list.push(flat);
      }
    });
    waiting[id] = count;
    if (count === 0 && own.local === null) ready.push(id);
  }
  for (let id = ready.pop(); id !== undefined; id = ready.pop()) {
    met[id] = 1;
    for (const flat of waiters[id] ?? []) {
      if (done[flat]) continue;
      done[flat] = 1;
      const waiter = owner[flat] as number;
      waiting[waiter] = (waiting[waiter] as number) - 1;
      if (waiting[waiter] === 0 && needs[waiter]?.local === null) ready.push(waiter);
    }
  }
  return met;
}

/**
 * Why the root cannot be met: follows unmet needs down (in the order the keywords are read) to a
 * subschema whose own keywords disagree, or to one that needs a subschema already on the way, a
 * value that would have to contain itself without end. Each subschema is visited once.
 */
function explain(root: SchemaNode, needs: Needs[], met: Uint8Array): Problem {
  const seen = new Set<SchemaNode>();
  const isMet = (t: Target) => t === true || (t !== false && met[t.id] === 1);
  for (let node: SchemaNode | null = root; node; ) {
    const own = needs[node.id] as Needs;
    const at = toArray(node.at);
    if (own.local) return { at, why: `no value can match: ${own.local}` };
    seen.add(node);
    let next: SchemaNode | null = null;
    let loop: Target | null = null;
    for (const need of own.list) {
      const options = need.kind === 'one' ? [need] : [...need.options].reverse();
      if (options.some((o) => isMet(o.target))) continue;
      // Like anyOf's message before: the last branch's problem stands for all of them.
      for (const o of options) {
        if (o.target === false)
          return { at: [...at, ...o.via], why: 'no value can match: the schema is false' };
        if (o.target !== true && !seen.has(o.target)) next = o.target;
        else loop ??= o.target;
        if (next) break;
      }
      if (next) break;
    }
    if (!next) {
      const ref = typeof node.schema.$ref === 'string' && loop === node.ref ? node.schema.$ref : null;
      return {
        at,
        why: ref
          ? `no value can match: '$ref' '${clip(ref, 100)}' leads back to a schema that requires this one, so every value would have to contain itself without end`
          : 'no value can match: every value it allows must contain another like it, without end (a required property or item that recurses)',
      };
    }
    node = next;
  }
  return { at: [], why: 'no value can match' };
}

/** What `node` needs, in the order the keywords are read; its own contradiction, if any. */
function needsOf(graph: SchemaGraph, node: SchemaNode): Needs {
  const s = node.schema;
  const list: Need[] = [];
  const one = (sub: unknown, ...via: (string | number)[]) => {
    const target = nodeOf(graph, sub);
    if (target !== undefined) list.push({ kind: 'one', target, via });
  };
  const types = typesOf(s);
  const only = (t: string) => types !== null && types.length > 0 && types.every((x) => x === t);
  const props = isObject(s.properties) ? s.properties : {};
  if (only('object')) {
    for (const key of asList(s.required)) {
      if (typeof key !== 'string') continue;
      if (Object.hasOwn(props, key)) one(props[key], 'properties', key);
      else if (!isObject(s.patternProperties)) one(s.additionalProperties, 'additionalProperties');
    }
  }
  asList(s.allOf).forEach((sub, i) => {
    one(sub, 'allOf', i);
  });
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = asList(s[key]).flatMap((sub, i) => {
      const target = nodeOf(graph, sub);
      return target === undefined ? [] : [{ target, via: [key, i] }];
    });
    // A branch that is not a schema at all is not judged: the group is then taken as met.
    if (options.length > 0 && options.length === asList(s[key]).length) list.push({ kind: 'any', options });
  }
  if (only('array') && typeof s.minItems === 'number' && s.minItems > 0) {
    // Draft-07's list form of `items` is 2020-12's `prefixItems`.
    const prefix = asList(s.prefixItems ?? (Array.isArray(s.items) ? s.items : []));
    for (let i = 0; i < Math.min(prefix.length, s.minItems); i++) one(prefix[i], 'prefixItems', i);
    if (s.minItems > prefix.length && !Array.isArray(s.items)) one(s.items, 'items');
  }
  if (node.ref !== undefined) list.push({ kind: 'one', target: node.ref, via: ['$ref'] });
  return { local: localProblem(s, types), list };
}

const BOUNDS: [string, string][] = [
  ['minLength', 'maxLength'],
  ['minItems', 'maxItems'],
  ['minProperties', 'maxProperties'],
  ['minimum', 'maximum'],
];

/** Why `s`'s own keywords exclude every value, or null. */
function localProblem(s: Schema, types: string[] | null): string | null {
  for (const [lo, hi] of BOUNDS) {
    const min = s[lo];
    const max = s[hi];
    if (typeof min === 'number' && typeof max === 'number' && min > max)
      return `'${lo}' ${min} is above '${hi}' ${max}`;
  }
  if (Array.isArray(s.enum)) {
    if (s.enum.length === 0) return "'enum' is empty";
    if (types && !s.enum.some((v) => types.some((t) => isType(t, v))))
      return `no 'enum' value is of type '${types.join("' or '")}'`;
  }
  if (Object.hasOwn(s, 'const') && types && !types.some((t) => isType(t, s.const)))
    return `'const' is not of type '${types.join("' or '")}'`;
  if (s.not === true || (isObject(s.not) && Object.keys(s.not).length === 0))
    return "'not' excludes every value";
  const objectOnly = types !== null && types.length > 0 && types.every((t) => t === 'object');
  if (objectOnly && s.additionalProperties === false && !isObject(s.patternProperties)) {
    const props = isObject(s.properties) ? s.properties : {};
    const missing = asList(s.required).find((k) => typeof k === 'string' && !Object.hasOwn(props, k));
    if (typeof missing === 'string')
      return `required property '${clip(missing, 64)}' is not allowed by 'additionalProperties': false`;
  }
  return null;
}

function typesOf(s: Schema): string[] | null {
  if (typeof s.type === 'string') return [s.type];
  return Array.isArray(s.type) ? (s.type as string[]) : null;
}
