import { clip } from '../../common/api-error';
import { pace } from '../../common/pace';
import { MAX_SCHEMA_CHAIN } from './schema-budgets';
import {
  PACE_EVERY,
  type Problem,
  type SchemaGraph,
  type SchemaNode,
  sameValueEdges,
  toArray,
} from './schema-graph';

/**
 * The schemas one value is judged against at once, followed through `$ref`, `allOf`, `anyOf`, `not`
 * and the rest: a loop among them (a root that is `allOf` of two `$ref`s to itself) means no value
 * can ever be judged, and the output check took 2^32 steps to find out; a chain of thousands of
 * `$ref`s overflowed the stack of every recursive reader. Both are found here, in one depth-first
 * pass over the graph with its own stack (linear in the graph), and refused.
 *
 * @example
 * await chainProblem((await walkSchema({ allOf: [{ $ref: '#' }, { $ref: '#' }] })).graph)
 * // → { at: ['allOf', 0], why: "'$ref' '#' leads back to …" }
 */
export async function chainProblem(graph: SchemaGraph): Promise<Problem | null> {
  // 0: not met yet; -1: on the current path; above 0: the longest chain that starts there.
  const height = new Int32Array(graph.nodes.length);
  type Frame = { node: SchemaNode; edges: SchemaNode[]; next: number; longest: number };
  let steps = 0;
  for (const start of graph.nodes) {
    if (height[start.id] !== 0) continue;
    if (++steps % PACE_EVERY === 0) await pace();
    const path: Frame[] = [];
    const enter = (node: SchemaNode): Problem | null => {
      if (path.length >= MAX_SCHEMA_CHAIN) return tooLong(node);
      height[node.id] = -1;
      const edges = sameValueEdges(graph, node).filter((e): e is SchemaNode => typeof e !== 'boolean');
      path.push({ node, edges, next: 0, longest: 0 });
      return null;
    };
    let problem = enter(start);
    while (!problem && path.length > 0) {
      if (++steps % PACE_EVERY === 0) await pace();
      const top = path[path.length - 1] as Frame;
      const edge = top.edges[top.next++];
      if (edge) {
        const h = height[edge.id] as number;
        if (h === -1) problem = loopProblem(path, edge);
        else if (h === 0) problem = enter(edge);
        else top.longest = Math.max(top.longest, h);
        continue;
      }
      path.pop();
      const h = top.longest + 1;
      if (h > MAX_SCHEMA_CHAIN) return tooLong(top.node);
      height[top.node.id] = h;
      const parent = path[path.length - 1];
      if (parent) parent.longest = Math.max(parent.longest, h);
    }
    if (problem) return problem;
  }
  return null;
}

function tooLong(node: SchemaNode): Problem {
  return {
    at: toArray(node.at),
    why: `more than ${MAX_SCHEMA_CHAIN} schemas apply to one value in a chain of '$ref', 'allOf', 'anyOf', 'oneOf' or 'not' that reaches here; intab follows at most ${MAX_SCHEMA_CHAIN}`,
  };
}

/** The loop closes at `back`, which is on `path`: named by a `$ref` in it (a tree has no loop without one). */
function loopProblem(path: { node: SchemaNode }[], back: SchemaNode): Problem {
  const loop = path.slice(path.findIndex((f) => f.node === back)).map((f) => f.node);
  const inLoop = new Set(loop);
  const by = loop.find((n) => typeof n.ref === 'object' && inLoop.has(n.ref)) ?? back;
  const ref = typeof by.schema.$ref === 'string' ? by.schema.$ref : '#';
  return {
    at: toArray(by.at),
    why: `'$ref' '${clip(ref, 100)}' leads back to this same schema for the same value, without passing through a property or an item, so no value can ever be checked against it`,
  };
}
