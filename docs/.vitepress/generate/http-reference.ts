// The HTTP API reference of `polar serve`, generated from its OpenAPI 3.1 document (src/serve/openapi-document.ts,
// the same object GET /openapi.json answers): every route with its parameters, body, answers and examples, and
// every schema field by field. A route added to the server (a test keeps the document complete) appears here.
import { codeSpan, inlineText, table } from './markdown-text.js';

/** The parts of an OpenAPI schema object this page renders. */
interface Schema {
  $ref?: string;
  type?: string | readonly string[];
  enum?: readonly unknown[];
  format?: string;
  items?: Schema;
  properties?: Readonly<Record<string, Schema>>;
  required?: readonly string[];
  additionalProperties?: boolean | Schema;
  default?: unknown;
  minimum?: number;
  description?: string;
}

interface MediaType {
  schema?: Schema;
  example?: unknown;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
  description?: string;
}

interface Operation {
  summary?: string;
  description?: string;
  security?: readonly unknown[];
  parameters?: readonly Parameter[];
  requestBody?: { required?: boolean; content: Readonly<Record<string, MediaType>> };
  responses: Readonly<Record<string, { $ref?: string; description?: string; content?: Readonly<Record<string, MediaType>> }>>;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  components: { responses: Readonly<Record<string, { description: string; content?: Readonly<Record<string, MediaType>> }>>; schemas: Readonly<Record<string, Schema>> };
  paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const GENERATED_NOTE = '<!-- Generated at build time from src/serve/openapi-document.ts by docs/.vitepress/generate/http-reference.ts: edit the document, not this page. -->';

const refName = (ref: string): string => ref.split('/').at(-1) ?? ref;
const schemaAnchor = (name: string): string => `schema-${name.toLowerCase()}`;
export const routeAnchor = (method: string, path: string): string => `${method}-${path.replace(/[{}]/g, '').replace(/[^a-zA-Z0-9]+/g, '-').replace(/^-|-$/g, '').toLowerCase()}`;

/** A schema's type in a few words (`integer ≥ 1`, `"wait" | "cancel"`, `array of string`, a link to a named schema). */
function typeOf(schema: Schema | undefined): string {
  if (schema === undefined) return '';
  if (schema.$ref !== undefined) return `[${refName(schema.$ref)}](#${schemaAnchor(refName(schema.$ref))})`;
  if (schema.enum !== undefined) return schema.enum.map((value) => codeSpan(JSON.stringify(value), { inTable: true })).join(' \\| ');
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type as string];
  let text = types.join(' or ');
  if (types.includes('array') && schema.items !== undefined) text = text.replace('array', `array of ${typeOf(schema.items)}`);
  if (types.includes('object') && typeof schema.additionalProperties === 'object' && schema.properties === undefined) text = text.replace('object', `map of ${typeOf(schema.additionalProperties)}`);
  if (schema.format !== undefined) text += ` (${schema.format})`;
  if (schema.minimum !== undefined) text += ` ≥ ${schema.minimum}`;
  return text;
}

/** The meaning column: a description (the parameter's own, else the schema's) and the default. */
function detail(schema: Schema | undefined, description = schema?.description): string {
  const parts = [description ?? ''];
  if (schema?.default !== undefined) parts.push(`Default: \`${JSON.stringify(schema.default)}\`.`);
  return parts.filter((part) => part !== '').map((part) => inlineText(part, { inTable: true })).join(' ');
}

/** The fields of an object schema, nested objects flattened as `parent.child`. */
function fieldRows(schema: Schema, prefix = ''): string[][] {
  const rows: string[][] = [];
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    const required = schema.required?.includes(name) ? 'yes' : '';
    rows.push([codeSpan(prefix + name, { inTable: true }), typeOf(field), required, detail(field)]);
    if (field.properties !== undefined) rows.push(...fieldRows(field, `${prefix}${name}.`));
    if (field.items?.properties !== undefined) rows.push(...fieldRows(field.items, `${prefix}${name}[].`));
  }
  return rows;
}

function fieldsTable(schema: Schema): string {
  return table(['Field', 'Type', 'Required', 'Meaning'], fieldRows(schema));
}

function example(media: MediaType | undefined): string[] {
  return media?.example === undefined ? [] : ['Example:', '', '```json', JSON.stringify(media.example, null, 2), '```', ''];
}

function bodySection(media: MediaType, doc: OpenApiDocument): string[] {
  const lines: string[] = [];
  const schema = media.schema;
  if (schema?.$ref !== undefined) {
    const name = refName(schema.$ref);
    lines.push(`Body: ${typeOf(schema)}${doc.components.schemas[name]?.description ? `: ${inlineText(doc.components.schemas[name]?.description ?? '')}` : ''}`, '');
  } else if (schema?.properties !== undefined) {
    lines.push(fieldsTable(schema), '');
  } else if (schema !== undefined) {
    lines.push(`Body: ${typeOf(schema)}`, '');
  }
  return [...lines, ...example(media)];
}

function operationSection(method: string, path: string, operation: Operation, doc: OpenApiDocument): string[] {
  const lines = [`## ${method.toUpperCase()} ${path} {#${routeAnchor(method, path)}}`, ''];
  if (operation.summary) lines.push(inlineText(operation.summary), '');
  if (operation.description) lines.push(inlineText(operation.description), '');
  if (operation.security !== undefined && operation.security.length === 0) lines.push('No token needed.', '');
  if (operation.parameters !== undefined && operation.parameters.length > 0) {
    lines.push(
      '**Parameters**',
      '',
      table(
        ['Name', 'In', 'Type', 'Required', 'Meaning'],
        operation.parameters.map((parameter) => [codeSpan(parameter.name, { inTable: true }), parameter.in, typeOf(parameter.schema), parameter.required ? 'yes' : '', detail(parameter.schema, parameter.description ?? parameter.schema?.description)]),
      ),
      '',
    );
  }
  if (operation.requestBody !== undefined) {
    for (const [type, media] of Object.entries(operation.requestBody.content)) {
      lines.push(`**Request body** (${codeSpan(type)}${operation.requestBody.required ? '' : ', optional'})`, '', ...bodySection(media, doc));
    }
  }
  lines.push('**Answers**', '');
  const answers: string[] = [];
  const examples: string[] = [];
  for (const [status, response] of Object.entries(operation.responses)) {
    if (response.$ref !== undefined) {
      answers.push(`- \`${status}\`: [error](#errors)`);
      continue;
    }
    const types = Object.entries(response.content ?? {});
    const shape = types.map(([type, media]) => `${codeSpan(type)}${media.schema?.$ref !== undefined ? ` ${typeOf(media.schema)}` : ''}`).join(', ');
    answers.push(`- \`${status}\`: ${inlineText(response.description ?? '')}${shape ? ` (${shape})` : ''}`);
    for (const [, media] of types) if (media.example !== undefined) examples.push(`\`${status}\` example:`, '', '```json', JSON.stringify(media.example, null, 2), '```', '');
  }
  return [...lines, ...answers, '', ...examples];
}

export function renderHttpReference(doc: OpenApiDocument): string {
  const lines = [
    '---',
    'title: HTTP API (polar serve)',
    'outline: [2, 2]',
    '---',
    '',
    GENERATED_NOTE,
    '',
    `# HTTP API: ${doc.info.title}`,
    '',
    inlineText(doc.info.description ?? ''),
    '',
    `This page is generated from the OpenAPI ${doc.openapi} document the server itself answers at \`GET /openapi.json\`. How to run the server and`,
    'what a trainer does with it: [Serving rollouts to a trainer](../guide/serving.md); the Python client: [polar-rollout](../python/index.md).',
    '',
    '| Route | What it does |',
    '|---|---|',
  ];
  const sections: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation === undefined) continue;
      lines.push(`| [${codeSpan(`${method.toUpperCase()} ${path}`, { inTable: true })}](#${routeAnchor(method, path)}) | ${inlineText(operation.summary ?? '', { inTable: true })} |`);
      sections.push(...operationSection(method, path, operation, doc));
    }
  }
  const error = doc.components.responses['Error'];
  lines.push(
    '',
    '## Errors {#errors}',
    '',
    `${inlineText(error?.description ?? '')} The body is an [Error](#schema-error): \`type\` says which, \`message\` what happened, \`hint\` (when present) how to fix it.`,
    '',
    ...example(error?.content?.['application/json']),
    ...sections,
    '## Schemas {#schemas}',
    '',
  );
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    lines.push(`### ${name} {#${schemaAnchor(name)}}`, '');
    if (schema.description) lines.push(inlineText(schema.description), '');
    lines.push(fieldsTable(schema), '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
