/**
 * The root runtime's tool pool: the built-ins (only those `builtinTools` names, and then only their modules load),
 * the program's own tools, every provider's tools (MCP servers) and the session's Skill tool. Children filter their
 * parent's pool instead (runtime.ts).
 */
import { assembleToolPool } from '../registry/tool-pool.js';
import { BASE_TOOL_ENTRIES, type BaseToolEntry } from '../registry/base-tools.js';
import { isDeferredTool, TOOL_SEARCH_TOOL_NAME } from '../tool/api-format.js';
import type { ToolPermissionContext } from '../tool/permission-types.js';
import type { Tools } from '../tool/tool.js';
import type { ToolServices } from '../tool/tool-use-context.js';
import type { ToolProvider, ToolRuntimeOptions } from './types.js';

/** What the root pool is made from (a runtime's shared state). */
export interface PoolSources {
  readonly options: Pick<ToolRuntimeOptions, 'tools' | 'env' | 'builtinTools' | 'lazyBuiltins'>;
  readonly services: Pick<ToolServices, 'commands'>;
  readonly providers: readonly ToolProvider[];
  /** Each provider's last listing: a provider that fails to list keeps what it had. */
  readonly providerTools: Map<ToolProvider, Tools>;
}

/** The pool and which of its tools are built-ins (by name: the deferral step may hand back copies of MCP tools). */
export async function assembleRootPool(
  shared: PoolSources,
  permissionContext: ToolPermissionContext,
): Promise<{ pool: Tools; builtIns: ReadonlySet<string> }> {
  const { providers, providerTools } = shared;
  // No await without a provider: the pool is assembled every turn, and most runtimes have none.
  if (providers.length > 0) {
    await Promise.all(
      providers.map(async (provider) => {
        try {
          providerTools.set(provider, await provider.getTools());
        } catch (error) {
          // A server that fails to list keeps the tools it had: one flaky server must not take the others down.
          process.emitWarning(`tool provider "${provider.name}" could not list its tools: ${(error as Error).message}`, {
            code: 'TOOLGATE_TOOL_PROVIDER',
          });
        }
      }),
    );
  }
  const extra = [...(shared.options.tools ?? []), ...providers.flatMap((p) => providerTools.get(p) ?? [])];
  const skill = shared.services.commands?.skillTool;
  const { env, builtinTools } = shared.options;
  const entries = builtinTools ? catalogueEntriesFor(builtinTools) : undefined;
  let pool = await assembleToolPool(permissionContext, extra, {
    // Built-ins load when called: the runtime's calls go through the tool run, which waits for the module.
    ...(shared.options.lazyBuiltins ? { lazy: true } : {}),
    ...(skill ? { sessionTools: [skill] } : {}),
    ...(env ? { env } : {}),
    ...(entries ? { entries } : {}),
  });
  if (builtinTools) {
    // Only the named built-ins (the Agent SDK's `tools`); a program's own tools and MCP tools stay.
    const named = new Set(builtinTools);
    const own = new Set(extra);
    pool = pool.filter((t) => own.has(t) || t.name === TOOL_SEARCH_TOOL_NAME || named.has(t.name) || (t.aliases ?? []).some((a) => named.has(a)));
    // ToolSearch stays only while something left is deferred behind it.
    if (!pool.some((t) => isDeferredTool(t, pool))) pool = pool.filter((t) => t.name !== TOOL_SEARCH_TOOL_NAME);
  }
  return { pool, builtIns: builtInsOf(shared, pool, extra) };
}

/** The last answer per runtime: the pool is assembled again between turns, and is nearly always the same. */
const lastBuiltIns = new WeakMap<PoolSources, { readonly pool: Tools; readonly extra: Tools; readonly names: ReadonlySet<string> }>();

/** The names of the pool's tools that are not extras (the program's own tools, providers' tools). */
function builtInsOf(shared: PoolSources, pool: Tools, extra: Tools): ReadonlySet<string> {
  const last = lastBuiltIns.get(shared);
  if (last && samePool(pool, last.pool) && samePool(extra, last.extra)) return last.names;
  const extras = new Set(extra.map((t) => t.name));
  const names = new Set(pool.flatMap((t) => (extras.has(t.name) ? [] : [t.name])));
  lastBuiltIns.set(shared, { pool, extra, names });
  return names;
}

/**
 * The catalogue's entries for `builtinTools`, so that only those tools' modules load (a one-shot `toolgate exec`
 * imports the tools it calls, not all of them). Undefined — the whole catalogue, filtered after loading as before —
 * when a name is not an entry's own (an alias such as Task, another provider's tool): what it names is known only
 * once the tools are loaded. ToolSearch's entry stays, as the filter keeps that tool.
 */
function catalogueEntriesFor(names: readonly string[]): readonly BaseToolEntry[] | undefined {
  // One list per `builtinTools` array: the catalogue's loaded list and the last pool are kept per list's identity
  // (base-tools.ts, tool-pool.ts), and the pool is assembled again every turn.
  if (entriesFor.has(names)) return entriesFor.get(names);
  const wanted = new Set(names);
  const known = new Set(BASE_TOOL_ENTRIES.map((e) => e.name));
  const entries = [...wanted].every((n) => known.has(n)) ? BASE_TOOL_ENTRIES.filter((e) => wanted.has(e.name) || e.name === TOOL_SEARCH_TOOL_NAME) : undefined;
  entriesFor.set(names, entries);
  return entries;
}

const entriesFor = new WeakMap<readonly string[], readonly BaseToolEntry[] | undefined>();

export function samePool(a: Tools, b: Tools): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}
