/**
 * A built-in tool before its module loads. The first request of a session needs only each tool's definition (name,
 * description, input JSON Schema and a few flags); loading every tool module for it was most of what a process's first
 * session cost (issue 38). The stub answers those from the build's manifest (tool-manifest.generated.ts, checked
 * against the live tools by tool-manifest.test.ts) and the description from the tool's own prompt module; its module
 * loads when something needs more — a call (the tool run and `runToolUse` await `whenToolLoaded` first), a prompt
 * the catalogue cannot make without it. Once loaded, the stub is the tool: every member is the module's own.
 *
 * Before then, a member the manifest does not hold throws (naming it): a caller that reads a trait of a tool it did
 * not load is a bug to fix, not a question to guess an answer to.
 */
import type { AnyTool, PromptOptions, ToolInputJSONSchema } from '../tool/tool.js';
import { LOAD_TOOL_MODULE } from '../tool/module-load.js';

/** One built-in as the manifest holds it: what the tool is without its module. */
export interface ToolManifestEntry {
  readonly name: string;
  /** The input schema as the API gets it (`zodToInputJSONSchema` of the tool's Zod schema). */
  readonly input_schema: ToolInputJSONSchema;
  /** The tool object's own keys (so `'x' in tool` and a missing member read as they will after loading). */
  readonly keys: readonly string[];
  /** Its members that are plain data (flags, limits, traits), by key. */
  readonly data: Readonly<Record<string, unknown>>;
}

export type Describe = (options: PromptOptions) => Promise<string>;

export interface LazyToolSource {
  readonly entry: ToolManifestEntry;
  /** The tool's module (the catalogue's cached load). */
  readonly load: () => Promise<AnyTool>;
  /** Its prompt without its module, when the catalogue has a way (the tool's prompt module); else prompt() loads it. */
  readonly describe?: () => Promise<Describe>;
}

export function lazyTool(source: LazyToolSource): AnyTool {
  const { entry } = source;
  let real: AnyTool | undefined;
  let loading: Promise<void> | undefined;
  const keys = new Set(entry.keys);
  const loadModule = (): Promise<void> => {
    loading ??= source.load().then(
      (tool) => {
        // The manifest is keyed on the catalogue entry: a module that exports another tool is not this one.
        if (tool.name !== entry.name) throw new Error(`built-in tool "${entry.name}": its module gave a tool named "${tool.name}"`);
        real = tool;
      },
      (error: unknown) => {
        loading = undefined; // the next call tries again and reports the real error
        throw error;
      },
    );
    return loading;
  };
  const members: Record<PropertyKey, unknown> = {
    ...entry.data,
    name: entry.name,
    inputJSONSchema: entry.input_schema,
    isEnabled: () => true,
    prompt: async (options: PromptOptions) => {
      if (source.describe && !real) return (await source.describe())(options);
      await loadModule();
      return real!.prompt(options);
    },
  };
  const before = (prop: PropertyKey): unknown => {
    if (prop === LOAD_TOOL_MODULE) return loadModule;
    if (Object.hasOwn(members, prop)) return members[prop];
    // Not thenable, not iterable, not printable as anything but what it is.
    if (typeof prop === 'symbol' || !keys.has(String(prop))) return undefined;
    throw new Error(`built-in tool "${entry.name}": "${prop}" was read before its module loaded (await whenToolLoaded(tool) first)`);
  };
  return new Proxy({} as AnyTool, {
    get: (_target, prop) => {
      if (real) return prop === LOAD_TOOL_MODULE ? undefined : Reflect.get(real, prop, real);
      return before(prop);
    },
    has: (_target, prop) => (real ? Reflect.has(real, prop) : prop === LOAD_TOOL_MODULE || (typeof prop === 'string' && (keys.has(prop) || Object.hasOwn(members, prop)))),
    ownKeys: () => (real ? Reflect.ownKeys(real) : [...keys]),
    getOwnPropertyDescriptor: (_target, prop) => {
      if (real) return Reflect.getOwnPropertyDescriptor(real, prop);
      if (typeof prop !== 'string' || !keys.has(prop)) return undefined;
      return { value: before(prop), writable: false, enumerable: true, configurable: true };
    },
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
  });
}
