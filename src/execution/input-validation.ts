/**
 * Step 3 of the pipeline, in words the model can act on: the shape checks that run before the schema (an object,
 * no prototype-pollution keys, bounded nesting), the Zod failure turned into an `InputValidationError` that names
 * each bad parameter with the type expected and the type received, the ToolSearch hint for deferred tools, and the
 * stripping of internal fields a model must never set.
 */
import type * as z from 'zod';
import { TOOL_SEARCH_TOOL_NAME } from '../tool/api-format.js';
import type { AnyTool } from '../tool/tool.js';

/** Keys that could reach `Object.prototype` through a careless merge further down; refused anywhere in an input. */
export const HOSTILE_INPUT_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Fields only the permission layer may set (a user-approved `sed` preview); a model's copy is dropped. */
export const INTERNAL_INPUT_FIELDS: readonly string[] = ['_simulatedSedEdit'];

const MAX_DEPTH = 64;
const MAX_NODES = 200_000;

/** `undefined` when the input may go on to the schema; otherwise why not, as one sentence. */
export function checkInputShape(input: unknown): string | undefined {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return `The input must be a JSON object of parameters, but it is ${describeType(input)}`;
  }
  if (isFlatAndClean(input as Record<string, unknown>)) return undefined; // the common case, without allocating
  const seen = new Set<object>();
  const stack: { value: object; depth: number; path: string }[] = [{ value: input, depth: 0, path: '' }];
  let nodes = 0;
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop()!;
    if (seen.has(value)) return `The input refers to itself at \`${path || '(root)'}\`; it must be plain JSON`;
    seen.add(value);
    if (depth > MAX_DEPTH) return `The input is nested more than ${MAX_DEPTH} levels deep at \`${path}\``;
    if (++nodes > MAX_NODES) return `The input has more than ${MAX_NODES} objects and arrays`;
    // Own keys only, including a JSON `"__proto__"` (JSON.parse makes it an own property).
    for (const key of Object.keys(value)) {
      const childPath = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
      if (!Array.isArray(value) && HOSTILE_INPUT_KEYS.has(key)) {
        return `The parameter name \`${childPath}\` is not allowed (reserved object key)`;
      }
      const child = (value as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: depth + 1, path: childPath });
    }
  }
  return undefined;
}

function isFlatAndClean(input: Record<string, unknown>): boolean {
  for (const key in input) {
    if (!Object.hasOwn(input, key)) continue;
    const value = input[key];
    if ((value !== null && typeof value === 'object') || HOSTILE_INPUT_KEYS.has(key)) return false;
  }
  // `for…in` skips a JSON `"__proto__"` own key only if it is not enumerable; Object.keys is the authority.
  return !Object.hasOwn(input, '__proto__');
}

/** `InputValidationError: Read failed due to the following issues:` + one line per issue. */
export function formatInputValidationError(toolName: string, error: z.ZodError, input: unknown): string {
  return formatIssues(toolName, error.issues, input);
}

function formatIssues(toolName: string, issues: readonly z.core.$ZodIssue[], input: unknown): string {
  const lines = issues.flatMap((issue) => describeIssue(issue, input));
  const unique = [...new Set(lines)];
  const noun = unique.length === 1 ? 'issue' : 'issues';
  return `InputValidationError: ${toolName} failed due to the following ${noun}:\n${unique.join('\n')}`;
}

/** A schema failure of a deferred tool the model has not loaded gets the ToolSearch hint (decided when the call runs). */
export function withDeferredHint(parsed: ParsedInput, tool: AnyTool): ParsedInput {
  if (parsed.ok || parsed.bySchema !== true) return parsed;
  return { ok: false, message: parsed.message + deferredToolHint(tool), errorClass: 'deferred_tool_not_loaded' };
}

/** The same error plus how to recover, for a deferred tool whose schema the model has not loaded. */
export function deferredToolHint(tool: AnyTool): string {
  return (
    `\n\nThis tool's schema was not loaded: ${tool.name} is a deferred tool, so its parameter types were not in ` +
    `your prompt and typed parameters (numbers, booleans, arrays) were probably sent as strings. Load it first: ` +
    `call ${TOOL_SEARCH_TOOL_NAME} with query "select:${tool.name}", then retry this call.`
  );
}

/** The model's input without internal fields (a new object when something was dropped, the same one otherwise). */
export function stripInternalFields(input: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const field of INTERNAL_INPUT_FIELDS) {
    if (Object.hasOwn(input, field)) {
      out ??= { ...input };
      delete out[field];
    }
  }
  return out ?? input;
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown): string[] {
  const path = formatPath(issue.path);
  const received = valueAt(input, issue.path);
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.path.length === 0) return [`The input must be ${issue.expected}, but it is ${describeType(received.value)}`];
      if (!received.present) return [`The required parameter \`${path}\` is missing`];
      return [`The parameter \`${path}\` type is expected as \`${issue.expected}\` but provided as \`${typeName(received.value)}\``];
    }
    case 'unrecognized_keys':
      return issue.keys.map((key) => `An unexpected parameter \`${formatPath([...issue.path, key])}\` was provided`);
    case 'invalid_value': {
      const options = issue.values.map((v) => JSON.stringify(v)).join(', ');
      if (!received.present) return [`The required parameter \`${path}\` is missing (one of ${options})`];
      return [`The parameter \`${path}\` must be one of ${options} but provided as ${preview(received.value)}`];
    }
    case 'invalid_union': {
      const expected = new Set<string>();
      for (const branch of issue.errors) {
        for (const sub of branch) if (sub.path.length === 0 && sub.code === 'invalid_type') expected.add(sub.expected);
      }
      if (!received.present) return [`The required parameter \`${path}\` is missing`];
      if (expected.size > 0) {
        return [`The parameter \`${path}\` type is expected as \`${[...expected].join(' | ')}\` but provided as \`${typeName(received.value)}\``];
      }
      return [`The parameter \`${path}\` does not match any allowed form (${issue.message})`];
    }
    case 'too_small':
    case 'too_big':
    case 'invalid_format':
    case 'not_multiple_of':
    case 'custom':
    default:
      return [`The parameter \`${path || '(input)'}\` is invalid: ${issue.message}`];
  }
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): { present: boolean; value: unknown } {
  let current: unknown = input;
  for (const part of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, part as string)) {
      return { present: false, value: undefined };
    }
    current = (current as Record<PropertyKey, unknown>)[part];
  }
  return { present: current !== undefined, value: current };
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function describeType(value: unknown): string {
  const t = typeName(value);
  return t === 'array' || t === 'object' || t === 'undefined' ? `an ${t}` : `a ${t}`;
}

function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = typeName(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export type ParsedInput =
  | { ok: true; input: Record<string, unknown> }
  | { ok: false; message: string; errorClass: 'input_validation' | 'deferred_tool_not_loaded'; readonly bySchema?: true };

/**
 * The model's input through the shape checks and the tool's schema, internal fields stripped. A deferred tool whose
 * schema the model has not loaded gets the ToolSearch hint with its error.
 */
export function parseToolInput(tool: AnyTool, input: unknown, deferredNotLoaded = false): ParsedInput {
  return parseInput(tool, input, deferredNotLoaded, false);
}

/**
 * A partial input (`toolgate check`: a policy test gives only the fields a rule looks at): the fields it has must be
 * valid, fields it lacks are not asked for. When only missing fields fail, the input is used as given (unparsed).
 */
export function parsePartialToolInput(tool: AnyTool, input: unknown): ParsedInput {
  return parseInput(tool, input, false, true);
}

function parseInput(tool: AnyTool, input: unknown, deferredNotLoaded: boolean, partial: boolean): ParsedInput {
  const problem = checkInputShape(input);
  if (problem) {
    return { ok: false, message: `InputValidationError: ${tool.name} failed due to the following issue:\n${problem}`, errorClass: 'input_validation' };
  }
  // Internal fields go before the schema: a closed schema would refuse them by name, and a model is not to learn
  // from the error that such a field exists; the call goes on as if it had not been sent.
  input = stripInternalFields(input as Record<string, unknown>);
  let result: ReturnType<AnyTool['inputSchema']['safeParse']>;
  try {
    result = tool.inputSchema.safeParse(input);
  } catch {
    // A refinement that throws is the tool's bug; the call still gets an answer and does not run.
    return { ok: false, message: `InputValidationError: ${tool.name} could not check its input`, errorClass: 'input_validation' };
  }
  if (!result.success && partial) {
    const wrong = result.error.issues.filter((issue) => valueAt(input, issue.path).present);
    if (wrong.length === 0) return { ok: true, input: stripInternalFields(input as Record<string, unknown>) };
    return { ok: false, message: formatIssues(tool.name, wrong, input), errorClass: 'input_validation', bySchema: true };
  }
  if (!result.success) {
    const message = formatInputValidationError(tool.name, result.error, input);
    return deferredNotLoaded
      ? { ok: false, message: message + deferredToolHint(tool), errorClass: 'deferred_tool_not_loaded' }
      : { ok: false, message, errorClass: 'input_validation', bySchema: true };
  }
  const data = result.data as unknown;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return { ok: false, message: `InputValidationError: ${tool.name}'s schema did not produce an object`, errorClass: 'input_validation' };
  }
  return { ok: true, input: stripInternalFields(data as Record<string, unknown>) };
}

/** A deep copy of plain JSON-like data (objects, arrays, scalars); other values are shared. */
export function cloneInput<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(cloneInput) as T;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = cloneInput((value as Record<string, unknown>)[key]);
  return out as T;
}

/** Identity or equal top-level values: a permission layer that hands back the input it was given changed nothing. */
export function sameTopLevel(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  if (a === b) return true;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && Object.is(a[k], b[k]));
}
