/**
 * fast-check arbitraries for the grammar converters' property tests: JSON Schemas of what apps send
 * (objects with optional and required properties, arrays and tuples, bounded strings and patterns,
 * integer bounds up to ±1e300, enums, anyOf, allOf and `$ref`s into `$defs`), and regex patterns
 * of the JSON Schema subset; each in a small and a large size.
 *
 * @example
 * fc.assert(fc.property(jsonSchemaArb('small'), (schema) => { … }));
 */
import fc from 'fast-check';

type Json = Record<string, unknown>;
type Size = 'small' | 'large';

const NAME = fc.stringMatching(/^[a-z_][a-z0-9_]{0,12}$/);

const BOUND = fc.oneof(fc.nat({ max: 20 }), fc.nat({ max: 2500 }));
const INT_BOUND = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.constantFrom(9007199254740991, -9007199254740991, 1e15, 1e16, 1e20, -1e20, 1e300, -1e300),
  fc.double({ min: -1e18, max: 1e18, noNaN: true }),
);

/** A regex of the JSON Schema subset, as text. */
export function regexArb(size: Size, maxRepeat = 2100): fc.Arbitrary<string> {
  const atom = fc.oneof(
    fc.constantFrom('a', 'b', 'z', '0', '-', ' ', '"', '\\\\', '\\.', '\\d', '\\w', '\\s', '\\D', '.', 'é'),
    fc.constantFrom('[a-z]', '[^"]', '[0-9a-fA-F]', '[\\d_]', '[-x]', '[^\\\\]'),
  );
  const quant = fc.oneof(
    fc.constant(''),
    fc.constantFrom('*', '+', '?', '*?'),
    fc
      .tuple(fc.nat({ max: 40 }), fc.option(fc.nat({ max: 40 }), { nil: undefined }))
      .map(([m, n]) => (n === undefined ? `{${m}}` : `{${m},${m + n}}`)),
    fc.tuple(fc.nat({ max: maxRepeat })).map(([m]) => `{0,${m}}`),
  );
  const { node } = fc.letrec<{ node: string }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', maxDepth: size === 'large' ? 6 : 5 },
      fc.tuple(atom, quant).map(([a, q]) => a + q),
      fc
        .tuple(fc.array(tie('node'), { minLength: 1, maxLength: size === 'large' ? 6 : 4 }), quant)
        .map(([items, q]) => `(${items.join('')})${q}`),
      fc
        .array(tie('node'), { minLength: 2, maxLength: size === 'large' ? 20 : 3 })
        .map((options) => `(?:${options.join('|')})`),
    ),
  }));
  const body = fc
    .array(node, { minLength: 1, maxLength: size === 'large' ? 2000 : 6 })
    .map((p) => p.join(''));
  return fc
    .tuple(fc.boolean(), body, fc.boolean())
    .map(([start, b, end]) => `${start ? '^' : ''}${b}${end ? '$' : ''}`);
}

/**
 * A JSON Schema with `$defs` at its root; `maxRepeat` bounds the `{0,n}` of its patterns (the
 * request validator refuses a pattern past its own limit before any grammar is made).
 */
export function jsonSchemaArb(size: Size, maxRepeat = 2100): fc.Arbitrary<Json> {
  const large = size === 'large';
  const leaf: fc.Arbitrary<Json> = fc.oneof(
    fc.record({ type: fc.constant('string') }),
    fc.record(
      { type: fc.constant('string'), minLength: BOUND, maxLength: BOUND },
      { requiredKeys: ['type'] },
    ),
    fc.record({
      type: fc.constant('string'),
      format: fc.constantFrom('date', 'time', 'date-time', 'uuid', 'email'),
    }),
    regexArb('small', maxRepeat).map((pattern) => ({ type: 'string', pattern })),
    fc.record(
      { type: fc.constant('integer'), minimum: INT_BOUND, maximum: INT_BOUND, exclusiveMinimum: INT_BOUND },
      { requiredKeys: ['type'] },
    ),
    fc.record({ type: fc.constantFrom('number', 'boolean', 'null') }),
    fc
      .array(fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean()), {
        minLength: 1,
        maxLength: large ? 3000 : 5,
      })
      .map((e) => ({ enum: e })),
    fc.constantFrom(
      { $ref: '#/$defs/A' },
      { $ref: '#/$defs/B' },
      { allOf: [{ $ref: '#/$defs/A' }], description: 'd' },
    ),
    fc.constant({}),
  );
  const { node } = fc.letrec<{ node: Json }>((tie) => ({
    node: fc.oneof(
      { depthSize: large ? 'medium' : 'small', maxDepth: large ? 8 : 4 },
      leaf,
      fc
        .tuple(
          fc.dictionary(NAME, tie('node'), { maxKeys: large ? 300 : 5 }),
          fc.double({ min: 0, max: 1, noNaN: true }),
          fc.option(fc.oneof(fc.boolean(), tie('node')), { nil: undefined }),
        )
        .map(([properties, share, extra]) => {
          const names = Object.keys(properties);
          const required = names.filter((_, i) => i < names.length * share);
          return {
            type: 'object',
            properties,
            required,
            ...(extra === undefined ? {} : { additionalProperties: extra }),
          };
        }),
      fc
        .record(
          { type: fc.constant('array'), items: tie('node'), minItems: BOUND, maxItems: BOUND },
          { requiredKeys: ['type', 'items'] },
        )
        .map((a) =>
          typeof a.maxItems === 'number' && typeof a.minItems === 'number' && a.maxItems < a.minItems
            ? { ...a, maxItems: a.minItems }
            : a,
        ),
      fc.array(tie('node'), { minLength: 1, maxLength: large ? 200 : 4 }).map((prefixItems) => ({
        type: 'array',
        prefixItems,
        minItems: Math.floor(prefixItems.length / 2),
        items: false,
      })),
      fc.array(tie('node'), { minLength: 1, maxLength: large ? 50 : 3 }).map((anyOf) => ({ anyOf })),
    ),
  }));
  const wide = fc.nat({ max: 3000 }).map((n) => {
    const properties: Json = {};
    for (let i = 0; i < n; i++) properties[`p${i}`] = { type: i % 2 ? 'string' : 'integer' };
    return { type: 'object', properties, required: Object.keys(properties).filter((_, i) => i % 7 === 0) };
  });
  const deep = fc.nat({ max: 300 }).map((n) => {
    let s: Json = { type: 'string' };
    for (let i = 0; i < n; i++) s = { type: 'object', properties: { x: s, y: { type: 'integer' } } };
    return s;
  });
  const root = large ? fc.oneof(node, wide, deep) : node;
  return fc.tuple(root, node, node).map(([r, a, b]) => ({
    ...r,
    $defs: { A: { type: 'object', properties: { a: a, self: { $ref: '#/$defs/A' } } }, B: b },
  }));
}
