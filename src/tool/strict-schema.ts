/**
 * Strict tool use (`strict: true`) accepts a subset of JSON Schema: every object closed with
 * `additionalProperties: false`; no numeric bounds (`minimum`, `maximum`, `exclusive*`, `multipleOf`), no string
 * lengths (`minLength`, `maxLength`), no array bounds beyond `minItems` of 0 or 1 (`maxItems`, `uniqueItems`…), no
 * `oneOf`, `not`, conditionals, `patternProperties`/`propertyNames`, no recursive or external `$ref`, and only the
 * string formats the API lists. `enum`/`const` of plain values, `anyOf`, `allOf`, `default`, `pattern`,
 * `description` and `title` are fine.
 *
 * `toStrictSchema()` rewrites a schema into that subset the way the Anthropic SDK's own helper does: what it cannot
 * express moves into the description as words (`{minimum: 1}`), `oneOf` becomes `anyOf`, objects are closed. A schema
 * that cannot be closed without changing what it accepts (a map with free keys, a recursive type) is not made strict
 * at all: the tool goes out without `strict` rather than with a schema that lies. `strictSchemaProblems()` lists
 * what a schema still has that strict mode rejects (the tests hold every built-in to it).
 */
export const STRICT_STRING_FORMATS: ReadonlySet<string> = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'uri',
  'ipv4',
  'ipv6',
  'uuid',
]);

/** Keywords strict mode accepts (anything else is moved into the description or is a problem). */
const ALLOWED = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'enum',
  'const',
  'anyOf',
  'allOf',
  'default',
  'pattern',
  'format',
  'description',
  'title',
  '$defs',
  'definitions',
  '$ref',
]);

type Schema = Record<string, unknown>;

export type StrictSchemaResult = { readonly ok: true; readonly schema: Schema } | { readonly ok: false; readonly reason: string };

export function toStrictSchema(schema: Schema): StrictSchemaResult {
  try {
    return { ok: true, schema: transform(schema, '') };
  } catch (error) {
    if (error instanceof NotStrictable) return { ok: false, reason: error.message };
    throw error;
  }
}

class NotStrictable extends Error {}

function transform(node: Schema, where: string): Schema {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
  if ('$ref' in node) throw new NotStrictable(`${where || 'the schema'} uses $ref (recursive or shared types cannot be made strict here)`);
  const out: Schema = {};
  const moved: string[] = [];
  for (const [key, value] of Object.entries(node)) {
    switch (key) {
      case 'properties': {
        const props: Schema = {};
        for (const [name, sub] of Object.entries(value as Schema)) props[name] = transform(sub as Schema, `${where}.${name}`);
        out.properties = props;
        break;
      }
      case 'items':
        out.items = Array.isArray(value) ? value.map((v, i) => transform(v as Schema, `${where}[${i}]`)) : transform(value as Schema, `${where}[]`);
        break;
      case 'anyOf':
      case 'oneOf':
        // oneOf's "exactly one" cannot be enforced by the grammar; for disjoint variants anyOf accepts the same.
        out.anyOf = (value as Schema[]).map((v, i) => transform(v, `${where}|${i}`));
        break;
      case 'allOf':
        out.allOf = (value as Schema[]).map((v, i) => transform(v, `${where}&${i}`));
        break;
      case 'additionalProperties':
        // `true` or `{}` (a loose object) can be closed: the model is only kept from inventing keys. A schema for the
        // values of free keys is a map, which a closed object cannot express.
        if (value !== false && value !== true && !(typeof value === 'object' && value !== null && Object.keys(value).length === 0)) {
          throw new NotStrictable(`${where || 'the schema'} is a map with free keys (additionalProperties), which strict mode cannot express`);
        }
        break;
      case 'propertyNames':
      case 'patternProperties':
        throw new NotStrictable(`${where || 'the schema'} constrains free keys (${key}), which strict mode cannot express`);
      case 'minItems':
        if (value === 0 || value === 1) out.minItems = value;
        else moved.push(`${key}: ${JSON.stringify(value)}`);
        break;
      case 'format':
        if (typeof value === 'string' && STRICT_STRING_FORMATS.has(value)) out.format = value;
        else moved.push(`${key}: ${JSON.stringify(value)}`);
        break;
      case 'enum':
      case 'const': {
        const plain = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
        if (key === 'enum' ? (value as unknown[]).every(plain) : plain(value)) out[key] = value;
        else throw new NotStrictable(`${where || 'the schema'} has an ${key} of objects or arrays`);
        break;
      }
      case 'minimum':
      case 'maximum':
        // Zod's `.int()` bounds every integer by the safe range: no information, and no words worth adding.
        if (Math.abs(value as number) === Number.MAX_SAFE_INTEGER) break;
        moved.push(`${key}: ${JSON.stringify(value)}`);
        break;
      default:
        if (ALLOWED.has(key)) out[key] = value;
        else moved.push(`${key}: ${JSON.stringify(value)}`);
    }
  }
  if (isObjectType(out)) {
    out.additionalProperties = false;
    out.properties ??= {};
  }
  if (moved.length > 0) {
    const words = `{${moved.join(', ')}}`;
    out.description = typeof out.description === 'string' && out.description.length > 0 ? `${out.description}\n\n${words}` : words;
  }
  return out;
}

function isObjectType(node: Schema): boolean {
  return node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object'));
}

/** What in `schema` strict mode would reject, each with where it is (`[]`: acceptable). */
export function strictSchemaProblems(schema: unknown, where = '(root)'): string[] {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return [`${where}: not a schema object`];
  const node = schema as Schema;
  const problems: string[] = [];
  for (const key of Object.keys(node)) if (!ALLOWED.has(key)) problems.push(`${where}: keyword "${key}" is not supported in strict mode`);
  if ('$ref' in node && (typeof node.$ref !== 'string' || !node.$ref.startsWith('#/'))) problems.push(`${where}: external $ref`);
  if (isObjectType(node) && node.additionalProperties !== false) problems.push(`${where}: object without "additionalProperties": false`);
  if ('minItems' in node && node.minItems !== 0 && node.minItems !== 1) problems.push(`${where}: minItems other than 0 or 1`);
  if (typeof node.format === 'string' && !STRICT_STRING_FORMATS.has(node.format)) problems.push(`${where}: string format "${node.format}"`);
  if (Array.isArray(node.required) && node.properties && typeof node.properties === 'object') {
    for (const name of node.required as string[]) if (!(name in (node.properties as Schema))) problems.push(`${where}: required "${name}" is not a property`);
  }
  for (const [name, sub] of Object.entries((node.properties as Schema | undefined) ?? {})) problems.push(...strictSchemaProblems(sub, `${where}.${name}`));
  if (node.items !== undefined) {
    const items = Array.isArray(node.items) ? node.items : [node.items];
    items.forEach((sub, i) => problems.push(...strictSchemaProblems(sub, `${where}[${Array.isArray(node.items) ? i : ''}]`)));
  }
  for (const key of ['anyOf', 'allOf'] as const) {
    ((node[key] as unknown[] | undefined) ?? []).forEach((sub, i) => problems.push(...strictSchemaProblems(sub, `${where}.${key}[${i}]`)));
  }
  for (const key of ['$defs', 'definitions'] as const) {
    for (const [name, sub] of Object.entries((node[key] as Schema | undefined) ?? {})) problems.push(...strictSchemaProblems(sub, `${where}.${key}.${name}`));
  }
  return problems;
}
