/**
 * Structured output on llama.cpp in Chromium: each JSON Schema becomes a grammar llama.cpp enforces
 * while sampling the tiny test GGUF at temperature 1, and the answer is checked with ajv; a schema no
 * grammar can enforce is a 400.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdkCreate } from './wllama.page';
import { ajv, closeWllamaApp, type Json, openWllamaApp, outputText, type WllamaApp } from './wllama-app';

let app: WllamaApp;
beforeAll(async () => {
  app = await openWllamaApp();
});
afterAll(() => closeWllamaApp(app));

describe('structured output', () => {
  const schemas: Record<string, Json> = {
    person: {
      type: 'object',
      properties: {
        name: { type: 'string', maxLength: 12 },
        age: { type: 'integer', minimum: 0, maximum: 120 },
      },
      required: ['name', 'age'],
      additionalProperties: false,
    },
    enumColor: {
      type: 'object',
      properties: { color: { type: 'string', enum: ['red', 'green', 'blue'] } },
      required: ['color'],
      additionalProperties: false,
    },
    nested: {
      type: 'object',
      properties: {
        user: {
          type: 'object',
          properties: {
            id: { type: 'integer', minimum: 1, maximum: 9999 },
            email: { type: 'string', format: 'email' },
          },
          required: ['id', 'email'],
          additionalProperties: false,
        },
      },
      required: ['user'],
      additionalProperties: false,
    },
    tags: {
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string', maxLength: 8 }, minItems: 1, maxItems: 4 },
      },
      required: ['tags'],
      additionalProperties: false,
    },
    pattern: {
      type: 'object',
      properties: { code: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{4}$' } },
      required: ['code'],
      additionalProperties: false,
    },
    nullable: {
      type: 'object',
      properties: { ok: { type: 'boolean' }, note: { type: ['string', 'null'], maxLength: 10 } },
      required: ['ok', 'note'],
      additionalProperties: false,
    },
    optional: {
      type: 'object',
      properties: { a: { type: 'integer', minimum: -50, maximum: 50 }, b: { type: 'string', maxLength: 5 } },
      required: ['a'],
      additionalProperties: false,
    },
    anyOf: {
      type: 'object',
      properties: {
        value: {
          anyOf: [
            { type: 'integer', minimum: 0, maximum: 9 },
            { type: 'string', enum: ['none'] },
          ],
        },
      },
      required: ['value'],
      additionalProperties: false,
    },
    orders: {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          maxItems: 3,
          items: {
            type: 'object',
            properties: {
              sku: { type: 'string', pattern: '^[a-z]{2}[0-9]{2}$' },
              qty: { type: 'integer', minimum: 1, maximum: 99 },
            },
            required: ['sku', 'qty'],
            additionalProperties: false,
          },
        },
      },
      required: ['items'],
      additionalProperties: false,
    },
    event: {
      type: 'object',
      properties: {
        kind: { const: 'event' },
        on: { type: 'string', format: 'date' },
        at: { type: 'string', format: 'time' },
      },
      required: ['kind', 'on', 'at'],
      additionalProperties: false,
    },
    price: {
      type: 'object',
      properties: {
        price: { type: 'number', minimum: 0 },
        qty: { type: 'integer', exclusiveMinimum: 0, maximum: 10 },
      },
      required: ['price', 'qty'],
      additionalProperties: false,
    },
    defs: {
      type: 'object',
      $defs: {
        point: {
          type: 'object',
          properties: {
            x: { type: 'integer', minimum: -9, maximum: 9 },
            y: { type: 'integer', minimum: -9, maximum: 9 },
          },
          required: ['x', 'y'],
          additionalProperties: false,
        },
      },
      properties: { from: { $ref: '#/$defs/point' }, to: { $ref: '#/$defs/point' } },
      required: ['from', 'to'],
      additionalProperties: false,
    },
  };

  it.each(Object.entries(schemas))(
    'holds the output to the %s schema (checked with ajv)',
    async (name, schema) => {
      const { response, error } = await app.page.evaluate(sdkCreate, {
        model: 'tiny',
        input: 'Answer in JSON.',
        text: { format: { type: 'json_schema', name, schema, strict: true } },
        max_output_tokens: 300,
        temperature: 1,
      });
      expect(error).toBeNull();
      expect(response?.status).toBe('completed');
      const value = JSON.parse(outputText(response));
      const validate = ajv.compile(schema);
      expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
    },
  );

  it('refuses a schema llama.cpp cannot enforce with a 400 naming it', async () => {
    const { error } = await app.page.evaluate(sdkCreate, {
      model: 'tiny',
      input: 'Answer in JSON.',
      text: {
        format: {
          type: 'json_schema',
          name: 'x',
          schema: {
            type: 'object',
            properties: { n: { type: 'integer', multipleOf: 3 } },
            required: ['n'],
            additionalProperties: false,
          },
          strict: true,
        },
      },
    });
    expect(error?.status).toBe(400);
    expect(error?.param).toBe('text.format.schema');
    expect(error?.message).toMatch(/multipleOf/);
  });
});

describe('json_object', () => {
  // The random model rarely closes a string it opened (most of its vocabulary has no quote), so a
  // reply that opens a member runs to the token limit: what is checked is that members open at all
  // (the grammar used to allow `{}` only), that a finished reply is one object, and that a cut one
  // was writing a member.
  it('lets the model write members; a finished answer parses as an object', async () => {
    const texts: string[] = [];
    for (let run = 0; run < 6; run++) {
      const { response, error } = await app.page.evaluate(sdkCreate, {
        model: 'tiny',
        input: 'Answer in JSON.',
        text: { format: { type: 'json_object' } },
        max_output_tokens: 24,
        temperature: 1,
      });
      expect(error).toBeNull();
      const text = outputText(response);
      texts.push(text);
      if (response?.status === 'completed') {
        const value = JSON.parse(text);
        expect(typeof value === 'object' && value !== null && !Array.isArray(value), text).toBe(true);
      } else {
        expect(response?.status).toBe('incomplete');
        expect(text, text).toMatch(/^\{\s*"/);
      }
    }
    expect(
      texts.some((t) => /^\{\s*"/.test(t)),
      texts.join('\n'),
    ).toBe(true);
  });

  it('llama.cpp accepts the grammar of a non-strict schema (its rules for undeclared keys) and holds the answer to it', async () => {
    const schema = {
      type: 'object',
      properties: { n: { type: 'integer', minimum: 0, maximum: 9 }, tag: { type: 'boolean' } },
      required: ['n'],
    };
    for (let run = 0; run < 2; run++) {
      const { response, error } = await app.page.evaluate(sdkCreate, {
        model: 'tiny',
        input: 'Answer in JSON.',
        text: { format: { type: 'json_schema', name: 'loose', schema, strict: false } },
        max_output_tokens: 24,
        temperature: 1,
      });
      expect(error).toBeNull();
      const text = outputText(response);
      if (response?.status === 'completed') {
        const validate = ajv.compile(schema);
        expect(validate(JSON.parse(text)), text).toBe(true);
      } else expect(text, text).toMatch(/^\{\s*"/);
    }
  });
});
