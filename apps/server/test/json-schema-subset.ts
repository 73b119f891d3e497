/**
 * A JSON Schema check for tests, of the keywords our documented schemas use (type, enum,
 * const, required, properties, additionalProperties, minLength, minimum, format date-time and
 * uri, if/then/else, not, allOf). A keyword outside that subset fails the check instead of being
 * ignored, so a schema cannot outgrow what its test really checks.
 */
type Schema = Record<string, unknown>;

const KNOWN = new Set([
  '$schema',
  '$id',
  'title',
  'description',
  'type',
  'enum',
  'const',
  'required',
  'properties',
  'additionalProperties',
  'minLength',
  'minimum',
  'format',
  'if',
  'then',
  'else',
  'not',
  'allOf',
]);

const TYPES: Record<string, (value: unknown) => boolean> = {
  object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  array: Array.isArray,
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  integer: (v) => Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
};

const FORMATS: Record<string, (value: string) => boolean> = {
  'date-time': (v) =>
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v) &&
    !Number.isNaN(Date.parse(v)),
  uri: (v) => URL.canParse(v),
};

/** Where `value` breaks `schema`, as 'path: problem' lines; empty when it is valid. */
export function schemaErrors(schema: Schema, value: unknown, path = '$'): string[] {
  const unknown = Object.keys(schema).filter((key) => !KNOWN.has(key));
  if (unknown.length > 0) return [`${path}: unsupported keywords ${unknown.join(', ')}`];
  const errors: string[] = [];
  const type = schema.type as string | undefined;
  if (type !== undefined && !TYPES[type]!(value)) return [`${path}: not ${type}`];
  if (schema.enum && !(schema.enum as unknown[]).includes(value))
    errors.push(`${path}: not in enum`);
  if ('const' in schema && schema.const !== value)
    errors.push(`${path}: not ${String(schema.const)}`);
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && value.length < schema.minLength) {
      errors.push(`${path}: shorter than ${schema.minLength}`);
    }
    const format = schema.format as string | undefined;
    if (format !== undefined && !FORMATS[format]?.(value)) errors.push(`${path}: not ${format}`);
  }
  if (typeof value === 'number' && typeof schema.minimum === 'number' && value < schema.minimum) {
    errors.push(`${path}: below ${schema.minimum}`);
  }
  if (TYPES.object!(value)) errors.push(...objectErrors(schema, value as Schema, path));
  if (schema.if) {
    const branch = schemaErrors(schema.if as Schema, value, path).length === 0 ? 'then' : 'else';
    if (schema[branch]) errors.push(...schemaErrors(schema[branch] as Schema, value, path));
  }
  for (const part of (schema.allOf as Schema[] | undefined) ?? []) {
    errors.push(...schemaErrors(part, value, path));
  }
  if (schema.not && schemaErrors(schema.not as Schema, value, path).length === 0) {
    errors.push(`${path}: matches a schema it must not`);
  }
  return errors;
}

function objectErrors(schema: Schema, value: Schema, path: string): string[] {
  const errors: string[] = [];
  for (const key of (schema.required as string[] | undefined) ?? []) {
    if (!(key in value)) errors.push(`${path}: missing ${key}`);
  }
  const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
  const extra = schema.additionalProperties;
  for (const [key, item] of Object.entries(value)) {
    const at = `${path}.${key}`;
    if (properties[key]) errors.push(...schemaErrors(properties[key], item, at));
    else if (extra === false) errors.push(`${at}: not allowed`);
    else if (typeof extra === 'object' && extra !== null) {
      errors.push(...schemaErrors(extra as Schema, item, at));
    }
  }
  return errors;
}
