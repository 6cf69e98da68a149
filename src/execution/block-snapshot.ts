/**
 * The boundary with an embedding program: content blocks and messages are read once, field by field, each read in a
 * `try`, into plain objects. After this nothing downstream touches the caller's object again, so a getter, a Proxy
 * trap, a `toString`/`toJSON`/`Symbol.toPrimitive` that throws — or a getter that answers differently the second
 * time — cannot reach the pipeline, the permission engine, a hook or a tool.
 *
 * What each content entry becomes (the rule `createToolRuntime().run/stream/begin/add` and the executor follow):
 * - `type: 'tool_use'` with a usable id (a non-empty string) → a plain tool_use block. A field that could not be read,
 *   or an input that is not plain JSON (cyclic, a getter that throws, a function inside), is kept as a `problem`: the
 *   call does not run and gets one `is_error` result naming what is wrong.
 * - a kind the client never answers (`text`, `thinking`, server tools and their results, …) → skipped: the Messages
 *   API rejects a tool_result for anything but a client tool_use.
 * - any other `type` (missing, misspelled, not a string, unreadable) with a usable id → answered with an `is_error`
 *   result saying it is not a tool_use (nothing runs); without a usable id, an unknown string kind is skipped (a block
 *   kind newer than this library) and anything else cannot be answered.
 * - cannot be answered (not an object, unreadable, a tool_use without a usable id) → `unanswerable`: the caller gets a
 *   TypeError (`ToolUseBlockError`) naming the entry, synchronously, before anything runs.
 */
import type { AssistantMessage, ToolUseBlock } from '../tool/tool.js';

/** Content kinds the client does not answer with a tool_result. */
export const NON_CLIENT_BLOCK_TYPES: ReadonlySet<string> = new Set([
  'text',
  'thinking',
  'redacted_thinking',
  'image',
  'document',
  'search_result',
  'tool_result',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'mcp_tool_use',
  'mcp_tool_result',
  'container_upload',
]);

export type BlockSnapshot =
  | { readonly kind: 'tool_use'; readonly block: ToolUseBlock; readonly problem?: string }
  | { readonly kind: 'skip'; readonly type: string }
  | { readonly kind: 'unanswerable'; readonly reason: string };

/** The error for an entry that cannot be answered at all (no usable tool_use id). */
export class ToolUseBlockError extends TypeError {
  override readonly name = 'ToolUseBlockError';
}

const MAX_DEPTH = 64;
const MAX_NODES = 200_000;

/**
 * The plain tool_use block this module produces. A class only so that "already read" is an `instanceof` test (a
 * WeakMap per call measured slower); its own fields are exactly a tool_use block's, so it serialises as one.
 */
class PlainToolUseBlock {
  readonly type = 'tool_use';
  constructor(
    readonly id: string,
    readonly name: unknown,
    readonly input: unknown,
  ) {}
}
/** `instanceof` asks a Proxy's `getPrototypeOf` trap, which may throw: such a value is not one of ours. */
function isPlain(value: object): value is PlainToolUseBlock {
  try {
    return value instanceof PlainToolUseBlock;
  } catch {
    return false;
  }
}
/** Problems found while reading, kept beside the block (a field on it would be sent to the API). */
const problems = new WeakMap<PlainToolUseBlock, string>();

/** Read in this order, each once. */
const BLOCK_FIELDS = ['type', 'id', 'name', 'input'] as const;

type Read = { ok: true; value: unknown } | { ok: false };

function read(target: object, key: PropertyKey): Read {
  try {
    return { ok: true, value: (target as Record<PropertyKey, unknown>)[key] };
  } catch {
    return { ok: false };
  }
}

/** A usable tool_use id: a non-empty string. */
export function usableId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value === undefined) return 'missing';
  if (typeof value === 'string') return value.length === 0 ? 'an empty string' : 'a string';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Reads one content entry once; never throws. */
export function snapshotContentBlock(value: unknown): BlockSnapshot {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
    return { kind: 'unanswerable', reason: `it is ${describe(value)}, not a content block` };
  }
  if (isPlain(value)) {
    const known = problems.get(value);
    return known === undefined ? { kind: 'tool_use', block: value as unknown as ToolUseBlock } : { kind: 'tool_use', block: value as unknown as ToolUseBlock, problem: known };
  }
  const fields = readAll(value, BLOCK_FIELDS);
  const typeValue = fields[0];
  const idValue = fields[1];
  const nameValue = fields[2];
  const inputValue = fields[3];
  const type: Read = typeValue === UNREADABLE ? { ok: false } : { ok: true, value: typeValue };
  const id: Read = idValue === UNREADABLE ? { ok: false } : { ok: true, value: idValue };
  const typeName = type.ok && typeof type.value === 'string' ? type.value : undefined;
  if (typeName !== undefined && NON_CLIENT_BLOCK_TYPES.has(typeName)) return { kind: 'skip', type: typeName };
  if (!id.ok) return { kind: 'unanswerable', reason: 'its `id` could not be read' };
  if (!usableId(id.value)) {
    if (typeName !== undefined && typeName !== 'tool_use') return { kind: 'skip', type: typeName };
    if (!type.ok) return { kind: 'unanswerable', reason: 'neither its `type` nor its `id` could be read' };
    return { kind: 'unanswerable', reason: `its \`id\` is ${describe(id.value)}; a tool_use needs a non-empty string id` };
  }
  // No closure here: this runs for every call, and a closure per call costs more than the rest (keepNames wraps it).
  let problem: string | undefined;
  if (typeName !== 'tool_use') {
    const what = !type.ok ? 'could not be read' : type.value === undefined ? 'is missing' : typeName !== undefined ? `is "${printable(typeName)}"` : `is ${describe(type.value)}`;
    problem = join(problem, `This content block's \`type\` ${what}, so it is not a tool_use; it was not run.`);
  }
  if (nameValue === UNREADABLE) problem = join(problem, 'The tool name could not be read.');
  let plainInput: unknown;
  if (inputValue === UNREADABLE) problem = join(problem, 'The input could not be read.');
  else {
    const copied = plainCopy(inputValue);
    if (copied.ok) plainInput = copied.value;
    else problem = join(problem, copied.problem);
  }
  const plain = new PlainToolUseBlock(id.value, nameValue === UNREADABLE ? undefined : safeName(nameValue), plainInput);
  const block = plain as unknown as ToolUseBlock;
  if (problem === undefined) return { kind: 'tool_use', block };
  problems.set(plain, problem);
  return { kind: 'tool_use', block, problem };
}

function join(problem: string | undefined, text: string): string {
  return problem === undefined ? text : `${problem} ${text}`;
}

/** A non-string name is kept only as a primitive (an object's `toString` is never called later). */
function safeName(name: unknown): unknown {
  return name !== null && (typeof name === 'object' || typeof name === 'function') ? `(${typeof name} name)` : name;
}

function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, '?');
  return clean.length > 60 ? `${clean.slice(0, 57)}...` : clean;
}

type Copied = { ok: true; value: unknown } | { ok: false; problem: string };

/**
 * A plain-JSON copy of an input, each property read once. Refuses what cannot be plain JSON: a cycle, a getter or
 * trap that throws, a function, symbol or bigint value. `undefined` values are kept (JavaScript callers use them for
 * absent options). Depth and size are bounded as the shape check bounds them.
 */
export function plainCopy(value: unknown): Copied {
  if (value === null || typeof value !== 'object') return copyValue(value, '', 0, { nodes: 0, onPath: new Set() });
  let isArray: boolean;
  let keys: string[];
  try {
    isArray = Array.isArray(value);
    keys = Object.keys(value);
  } catch {
    return { ok: false, problem: 'The input could not be read at the top level.' };
  }
  if (isArray) return copyValue(value, '', 0, { nodes: 0, onPath: new Set() });
  // The common case, a flat object: each key read once, no walk allocated unless a value is an object.
  const values = readAll(value, keys);
  const out: Record<string, unknown> = {};
  let walk: Walk | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    let v = values[i];
    if (v === UNREADABLE) return { ok: false, problem: `The input's parameter \`${key}\` could not be read.` };
    if (v !== null && (typeof v === 'object' || typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint')) {
      walk ??= { nodes: 1, onPath: new Set([value]) };
      const c = copyValue(v, key, 1, walk);
      if (!c.ok) return c;
      v = c.value;
    }
    if (key === '__proto__') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    else out[key] = v;
  }
  return { ok: true, value: out };
}

const UNREADABLE: unique symbol = Symbol('unreadable');

/** Each key read once; one `try` for the whole run (a throwing getter marks its own value and the reading goes on). */
function readAll(target: object, keys: readonly PropertyKey[]): unknown[] {
  const out = new Array<unknown>(keys.length);
  let i = 0;
  while (i < keys.length) {
    try {
      for (; i < keys.length; i++) out[i] = (target as Record<PropertyKey, unknown>)[keys[i]!];
    } catch {
      out[i++] = UNREADABLE;
    }
  }
  return out;
}

interface Walk {
  nodes: number;
  readonly onPath: Set<object>;
}

function at(path: string): string {
  return path ? `\`${path}\`` : 'the top level';
}

function copyValue(v: unknown, path: string, depth: number, walk: Walk): Copied {
  if (v === null || v === undefined || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return { ok: true, value: v };
  if (typeof v !== 'object') return { ok: false, problem: `The input holds ${describe(v)} at ${at(path)}; it must be plain JSON.` };
  if (walk.onPath.has(v)) return { ok: false, problem: `The input refers to itself at ${at(path)}; it must be plain JSON.` };
  if (depth > MAX_DEPTH) return { ok: false, problem: `The input is nested more than ${MAX_DEPTH} levels deep at ${at(path)}.` };
  if (++walk.nodes > MAX_NODES) return { ok: false, problem: `The input has more than ${MAX_NODES} objects and arrays.` };
  let isArray: boolean;
  let keys: string[];
  try {
    isArray = Array.isArray(v);
    keys = Object.keys(v);
  } catch {
    return { ok: false, problem: `The input could not be read at ${at(path)}.` };
  }
  walk.onPath.add(v);
  try {
    const out: unknown[] | Record<string, unknown> = isArray ? [] : {};
    for (const key of keys) {
      const childPath = isArray ? `${path}[${key}]` : path ? `${path}.${key}` : key;
      const child = read(v, key);
      if (!child.ok) return { ok: false, problem: `The input's parameter \`${childPath}\` could not be read.` };
      const c = copyValue(child.value, childPath, depth + 1, walk);
      if (!c.ok) return c;
      // An own `__proto__` key stays an own key (the shape check refuses it by name later), never a prototype.
      if (key === '__proto__') Object.defineProperty(out, key, { value: c.value, enumerable: true, writable: true, configurable: true });
      else (out as Record<string, unknown>)[key] = c.value;
    }
    return { ok: true, value: out };
  } finally {
    walk.onPath.delete(v);
  }
}

export interface MessageSnapshot {
  /** A plain copy: role, id when it is a string, and the content entries that were readable. */
  readonly message: AssistantMessage;
  /** Every content entry, in order. */
  readonly entries: readonly BlockSnapshot[];
}

/**
 * An assistant message read once. Throws `ToolUseBlockError` when it is not an object, or when an entry cannot be
 * answered (naming each, by index) — before anything has run, so no call is half-done.
 */
export function snapshotAssistantMessage(message: unknown, what = 'the assistant message', options: { readonly strict?: boolean } = {}): MessageSnapshot {
  if (message === null || typeof message !== 'object') throw new ToolUseBlockError(`${what} must be an object, but it is ${describe(message)}`);
  const content = Array.isArray(message) ? { ok: true as const, value: message } : read(message, 'content');
  if (!content.ok) throw new ToolUseBlockError(`the content of ${what} could not be read`);
  let list: unknown[] = [];
  if (typeof content.value === 'string' || content.value === undefined) list = [];
  else {
    try {
      list = Array.isArray(content.value) ? Array.from(content.value as unknown[]) : [];
    } catch {
      throw new ToolUseBlockError(`the content of ${what} could not be read`);
    }
    if (!Array.isArray(content.value)) throw new ToolUseBlockError(`the content of ${what} must be an array or a string, but it is ${describe(content.value)}`);
  }
  const entries = list.map(snapshotContentBlock);
  const bad = entries.flatMap((e, i) => (e.kind === 'unanswerable' ? [`content[${i}]: ${e.reason}`] : []));
  if (bad.length > 0 && options.strict !== false) {
    const shown = bad.slice(0, 5).join('; ') + (bad.length > 5 ? `; and ${bad.length - 5} more` : '');
    throw new ToolUseBlockError(`${what} has content that cannot be answered with a tool_result (nothing was run): ${shown}`);
  }
  const id = Array.isArray(message) ? undefined : read(message, 'id');
  const blocks = entries.flatMap((e) => (e.kind === 'tool_use' ? [e.block] : []));
  const plain = { role: 'assistant', content: blocks, ...(id?.ok && typeof id.value === 'string' ? { id: id.value } : {}) } as AssistantMessage;
  return { message: plain, entries };
}
