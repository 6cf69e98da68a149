import { describe, expect, it } from 'vitest';
import { strictSchemaProblems, toStrictSchema } from './strict-schema.js';

describe('toStrictSchema', () => {
  it('closes every object, moves bounds strict mode rejects into words, turns oneOf into anyOf', () => {
    const r = toStrictSchema({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 10, description: 'who' },
        count: { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, exclusiveMinimum: 0 },
        tags: { type: 'array', items: { type: 'object', properties: { k: { type: 'string', format: 'regex' } } }, minItems: 2, maxItems: 5 },
        pick: { oneOf: [{ type: 'string', enum: ['a', 'b'] }, { type: 'null' }] },
      },
      required: ['name'],
    });
    expect(r.ok).toBe(true);
    const schema = (r as { schema: Record<string, any> }).schema;
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.name).toEqual({ type: 'string', description: 'who\n\n{minLength: 1, maxLength: 10}' });
    expect(schema.properties.count).toEqual({ type: 'integer', description: '{exclusiveMinimum: 0}' });
    expect(schema.properties.tags.items.additionalProperties).toBe(false);
    expect(schema.properties.tags.items.properties.k.description).toBe('{format: "regex"}');
    expect(schema.properties.tags.description).toBe('{minItems: 2, maxItems: 5}');
    expect(schema.properties.pick.anyOf).toHaveLength(2);
    expect(strictSchemaProblems(schema)).toEqual([]);
  });

  it('refuses what cannot be closed without changing its meaning: maps with free keys, $ref', () => {
    expect(toStrictSchema({ type: 'object', additionalProperties: { type: 'string' } }).ok).toBe(false);
    expect(toStrictSchema({ type: 'object', propertyNames: { type: 'string' } }).ok).toBe(false);
    expect(toStrictSchema({ type: 'object', properties: { n: { $ref: '#' } } }).ok).toBe(false);
    expect(toStrictSchema({ type: 'object', additionalProperties: {} }).ok).toBe(true);
  });
});

describe('strictSchemaProblems', () => {
  it('names each violation with its place', () => {
    expect(
      strictSchemaProblems({ type: 'object', properties: { a: { type: 'object', properties: {} }, b: { type: 'string', maxLength: 3 } } }),
    ).toEqual(['(root): object without "additionalProperties": false', '(root).a: object without "additionalProperties": false', '(root).b: keyword "maxLength" is not supported in strict mode']);
  });
});
