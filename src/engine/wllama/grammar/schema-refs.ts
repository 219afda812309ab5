/**
 * `$ref`s of a schema document, resolved once into a table: a chain of `$ref`s (a definition that is
 * only a `$ref` to another) is followed in a loop, never by recursion, so a 5000-link chain costs
 * 5000 steps and no stack; a chain that loops back on itself matches nothing and is refused.
 */
import { clip } from '../../../common/api-error';
import { encodePointer, fragmentTokens, resolveTokens } from '../../../common/json-pointer';

type Schema = Record<string, unknown> | boolean;

/** A `$ref` this converter cannot follow; `path` is where, in JSON Pointer. */
export class RefError extends Error {
  override readonly name = 'RefError';
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Resolves `#/$defs/…` and `#/definitions/…` against one document.
 *
 * @example
 * const refs = new RefTable(root);
 * refs.resolve('#/$defs/Address', '/properties/home'); // { key: '#/$defs/Address', schema: {...} }
 */
export class RefTable {
  private readonly ends = new Map<string, { key: string; schema: Schema; pointer: string }>();

  constructor(private readonly root: Record<string, unknown>) {}

  /**
   * Where `ref` leads once every link of its chain is followed: the last `$ref` of the chain (the
   * key its rule is kept under), that definition, and its JSON Pointer.
   */
  resolve(ref: string, path: string): { key: string; schema: Schema; pointer: string } {
    const known = this.ends.get(ref);
    if (known) return known;
    const chain: string[] = [];
    const seen = new Set<string>();
    let key = ref;
    let end: { key: string; schema: Schema; pointer: string } | undefined;
    for (;;) {
      const cached = this.ends.get(key);
      if (cached) {
        end = cached;
        break;
      }
      if (seen.has(key)) {
        throw new RefError(
          `${path}/$ref`,
          `The '$ref' ${clip(ref, 100)} leads back to itself and matches nothing.`,
        );
      }
      seen.add(key);
      chain.push(key);
      const { schema, pointer } = this.lookup(key, path);
      if (
        typeof schema === 'object' &&
        schema !== null &&
        typeof schema.$ref === 'string' &&
        onlyRef(schema)
      ) {
        key = schema.$ref;
        continue;
      }
      end = { key, schema, pointer };
      break;
    }
    for (const k of chain) this.ends.set(k, end);
    return end;
  }

  /** `schema` itself, or where its `$ref` leads (for the places that merge schemas). */
  deref(schema: Schema, path: string): Schema {
    if (typeof schema !== 'object' || schema === null || typeof schema.$ref !== 'string') return schema;
    return this.resolve(schema.$ref, path).schema;
  }

  private lookup(ref: string, path: string): { schema: Schema; pointer: string } {
    // The one JSON Pointer reading (RFC 6901, %-decoded) that the request check used to accept the ref.
    const keys = fragmentTokens(ref);
    const target =
      keys?.length === 2 && (keys[0] === '$defs' || keys[0] === 'definitions')
        ? (resolveTokens(this.root, keys) as Schema | undefined)
        : undefined;
    if (!keys || target === undefined) {
      throw new RefError(
        `${path}/$ref`,
        `Cannot resolve '$ref' ${clip(ref, 100)}: only '#/$defs/…' and '#/definitions/…' are supported.`,
      );
    }
    return { schema: target, pointer: encodePointer(keys) };
  }
}

/** Keywords beside a `$ref` that change nothing a grammar enforces. */
const ANNOTATIONS = new Set([
  '$ref',
  'title',
  'description',
  'default',
  'examples',
  '$comment',
  'deprecated',
]);

function onlyRef(schema: Record<string, unknown>): boolean {
  return Object.keys(schema).every((k) => ANNOTATIONS.has(k));
}
