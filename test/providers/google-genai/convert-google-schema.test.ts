import { describe, expect, it } from 'vitest';
import { convertGoogleSchema } from '../../../src/providers/google-genai/convert-google-schema.js';

describe('convertGoogleSchema', () => {
  const cases: Array<{ name: string; input: Record<string, unknown>; output: Record<string, unknown> }> = [
    {
      name: 'upper-case types, nested properties, items and anyOf',
      input: {
        type: 'OBJECT',
        properties: {
          tags: { type: 'ARRAY', items: { type: 'STRING', enum: ['A', 'B'] }, minItems: '1', maxItems: '5' },
          size: { anyOf: [{ type: 'INTEGER' }, { type: 'NUMBER', format: 'double' }] },
        },
        required: ['tags'],
        propertyOrdering: ['tags', 'size'],
      },
      output: {
        type: 'object',
        properties: {
          tags: { type: 'array', items: { type: 'string', enum: ['A', 'B'] }, minItems: 1, maxItems: 5 },
          size: { anyOf: [{ type: 'integer' }, { type: 'number', format: 'double' }] },
        },
        required: ['tags'],
        propertyOrdering: ['tags', 'size'],
      },
    },
    {
      name: 'nullable becomes a null union; TYPE_UNSPECIFIED is no type',
      input: { type: 'STRING', nullable: true, description: 'd' },
      output: { type: ['string', 'null'], description: 'd' },
    },
    { name: 'nullable without a type is kept', input: { nullable: true }, output: { nullable: true } },
    { name: 'unspecified type is dropped', input: { type: 'TYPE_UNSPECIFIED', nullable: false }, output: {} },
    {
      name: 'property names, enum values and defaults are not touched',
      input: { type: 'OBJECT', properties: { TYPE: { type: 'BOOLEAN', default: 'OBJECT' } } },
      output: { type: 'object', properties: { TYPE: { type: 'boolean', default: 'OBJECT' } } },
    },
  ];

  it.each(cases)('$name', ({ input, output }) => {
    expect(convertGoogleSchema(input)).toStrictEqual(output);
  });
});
