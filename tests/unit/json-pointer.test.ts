/**
 * The one JSON Pointer resolver (RFC 6901) that every local `$ref` goes through: the strict-output
 * check, the request-schema graph, the scripted model's instances and the wllama grammar.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  encodePointer,
  fragmentTokens,
  pointerTokens,
  resolveFragment,
  resolveTokens,
} from '../../src/common/json-pointer';
import { checkJsonSchemaPaced } from '../../src/core/validation/json-schema-check';
import { walkSchema } from '../../src/core/validation/schema-graph';
import { schemaInstancePaced } from '../../src/engine/scripted/schema-instance';
import { jsonSchemaToGbnf } from '../../src/engine/wllama/grammar/json-schema-gbnf';

/** RFC 6901 §5's document. */
const doc = {
  foo: ['bar', 'baz'],
  '': 0,
  'a/b': 1,
  'c%d': 2,
  'e^f': 3,
  'g|h': 4,
  'i\\j': 5,
  'k"l': 6,
  ' ': 7,
  'm~n': 8,
};

describe('JSON Pointer (RFC 6901)', () => {
  it('resolves the examples of RFC 6901 §5 (string form) and §6 (URI fragment form)', () => {
    // [string form, URI fragment form, value]
    const examples: [string, string, unknown][] = [
      ['', '#', doc],
      ['/foo', '#/foo', ['bar', 'baz']],
      ['/foo/0', '#/foo/0', 'bar'],
      ['/', '#/', 0],
      ['/a~1b', '#/a~1b', 1],
      ['/c%d', '#/c%25d', 2],
      ['/e^f', '#/e%5Ef', 3],
      ['/g|h', '#/g%7Ch', 4],
      ['/i\\j', '#/i%5Cj', 5],
      ['/k"l', '#/k%22l', 6],
      ['/ ', '#/%20', 7],
      ['/m~0n', '#/m~0n', 8],
    ];
    for (const [pointer, ref, value] of examples) {
      expect(resolveTokens(doc, pointerTokens(pointer) ?? ['(none)'])).toEqual(value);
      expect(resolveFragment(doc, ref)).toEqual(value);
    }
  });

  it('unescapes ~1 before ~0, once: `~01` is the key `~1`', () => {
    expect(pointerTokens('/~01')).toEqual(['~1']);
    expect(resolveFragment({ '~1': 'x', '/': 'y' }, '#/~01')).toBe('x');
  });

  it('splits a fragment before %-decoding it: `%2F` is a slash inside a key', () => {
    expect(fragmentTokens('#/a%2Fb')).toEqual(['a/b']);
    expect(fragmentTokens('#/a%7E1b')).toEqual(['a/b']);
  });

  it('takes array indexes in RFC 6901 form only, and own keys only', () => {
    const root = { list: ['a', 'b'] };
    expect(resolveFragment(root, '#/list/1')).toBe('b');
    expect(resolveFragment(root, '#/list/01')).toBeUndefined();
    expect(resolveFragment(root, '#/list/-')).toBeUndefined();
    expect(resolveFragment(root, '#/list/2')).toBeUndefined();
    expect(resolveFragment(root, '#/list/length')).toBeUndefined();
    expect(resolveFragment(root, '#/toString')).toBeUndefined();
    expect(resolveFragment(root, '#/list/0/length')).toBeUndefined();
  });

  it('names nothing for what is not a local pointer: remote refs, anchors, bad escapes', () => {
    for (const ref of ['other.json#/a', '#a', '#/a~2', '#/a~', '#/%zz'])
      expect([ref, fragmentTokens(ref)]).toEqual([ref, null]);
    expect(pointerTokens('a/b')).toBeNull();
    // Outside a fragment a % is a character like any other.
    expect(pointerTokens('/%20')).toEqual(['%20']);
  });

  it('resolves any path it encodes, in both forms (property)', () => {
    const key = fc.oneof(fc.string(), fc.constantFrom('~', '/', '~1', '~0', '%', '%25', '', '01', '-'));
    const step = fc.oneof(key, fc.nat({ max: 4 }));
    fc.assert(
      fc.property(fc.array(step, { maxLength: 8 }), fc.anything(), (path, leaf) => {
        // Builds the document the path leads through: an object per key, an array per index.
        let root: unknown = leaf;
        for (let i = path.length - 1; i >= 0; i--) {
          const at = path[i] as string | number;
          if (typeof at === 'number') root = Object.assign(new Array(at + 1).fill(null), { [at]: root });
          else root = Object.fromEntries([[at, root]]);
        }
        expect(resolveTokens(root, pointerTokens(encodePointer(path)) ?? [])).toBe(leaf);
        expect(resolveFragment(root, encodePointer(path, true))).toBe(leaf);
        expect(pointerTokens(encodePointer(path))).toEqual(path.map(String));
      }),
      { numRuns: 500 },
    );
  });

  it('parses in one pass: a pointer of 100,000 tokens is read in one go', () => {
    const path = Array.from({ length: 100_000 }, (_, i) => (i % 2 ? 'a~b' : 'c/d'));
    expect(pointerTokens(encodePointer(path))).toEqual(path);
  });
});

describe('every $ref reads the pointer the same way', () => {
  const spaced = { $defs: { 'a b': { type: 'integer' } }, $ref: '#/$defs/a%20b' };

  it('the scripted model follows a %-encoded $ref (it used to write null)', async () => {
    expect(await schemaInstancePaced(spaced)).toBe(1);
  });

  it('the wllama grammar follows a %-encoded $ref that the request check accepts', async () => {
    expect((await walkSchema(spaced)).problem).toBeNull();
    expect(jsonSchemaToGbnf(spaced)).toMatch(/::= json-int\n/);
  });

  it('the strict-output check follows a %-encoded $ref', async () => {
    expect(await checkJsonSchemaPaced(spaced, 'x')).toBe('$: expected integer, got string');
  });

  it('a request schema whose $ref has a leading-zero index or is an anchor does not resolve (a 400)', async () => {
    const items = ($ref: string) => ({ type: 'array', prefixItems: [{ type: 'string' }], items: { $ref } });
    const anchor = { $defs: { A: { type: 'string' } }, properties: { a: { $ref: '#$defs' } } };
    for (const schema of [items('#/prefixItems/00'), anchor])
      expect((await walkSchema(schema)).problem?.why).toMatch(/does not resolve/);
    expect((await walkSchema(items('#/prefixItems/0'))).problem).toBeNull();
  });
});
