import { afterEach, describe, expect, it } from 'vitest';
import { toolsToAPI } from '../tool/api-format.js';
import { getEmptyToolPermissionContext } from '../tool/permission-types.js';
import type { AnyTool, PromptOptions, Tools } from '../tool/tool.js';
import { whenToolLoaded } from '../tool/module-load.js';
import { BASE_TOOL_ENTRIES } from './base-tools.js';
import { lazyTool } from './lazy-tool.js';
import { manifestEntryOf, toolManifest } from './tool-manifest.js';

const live = async (): Promise<AnyTool[]> => Promise.all(BASE_TOOL_ENTRIES.map((e) => e.load()));
const permission = () => getEmptyToolPermissionContext('/w');
const savedEnv = process.env.TOOLGATE_FILE_READ_MAX_OUTPUT_TOKENS;
afterEach(() => {
  if (savedEnv === undefined) delete process.env.TOOLGATE_FILE_READ_MAX_OUTPUT_TOKENS;
  else process.env.TOOLGATE_FILE_READ_MAX_OUTPUT_TOKENS = savedEnv;
});

/** Stubs over the live catalogue, each counting its module loads. */
function stubs(loads: string[]): AnyTool[] {
  return BASE_TOOL_ENTRIES.map((entry) => {
    const manifestEntry = toolManifest().get(entry.name)!;
    return lazyTool({ entry: manifestEntry, load: () => (loads.push(entry.name), entry.load()), ...(entry.describe ? { describe: entry.describe } : {}) });
  });
}

describe('the built-in tools manifest (npm run build writes it: scripts/tool-manifest.ts)', () => {
  it('holds every built-in, each entry what the live tool gives now, the schema byte for byte', async () => {
    const tools = await live();
    expect([...toolManifest().keys()]).toEqual(tools.map((t) => t.name));
    for (const tool of tools) {
      const made = manifestEntryOf(tool);
      expect(made, `${tool.name} is no longer describable without its module`).toBeDefined();
      const kept = toolManifest().get(tool.name)!;
      expect(JSON.stringify(kept.input_schema), `${tool.name}'s schema changed: run npm run build`).toBe(JSON.stringify(made!.input_schema));
      expect(kept).toEqual(JSON.parse(JSON.stringify(made)));
    }
  });

  it("gives each catalogue entry's description as the tool's own prompt() does, under other options, settings and env", async () => {
    const tools = await live();
    const fewer = tools.filter((t) => t.name !== 'Agent' && t.name !== 'Grep');
    const variants: PromptOptions[] = [
      { getToolPermissionContext: permission, tools, model: 'claude-sonnet-4-6' },
      { getToolPermissionContext: permission, tools, services: { agentDefinitions: { definitions: [{ agentType: 'reviewer', description: 'Reviews a diff', systemPrompt: 'Review it.', tools: ['Read'], source: 'session' }], readFiles: false } } as PromptOptions['services'] },
      { getToolPermissionContext: permission, tools: fewer, model: 'claude-haiku-4-5', settings: { bash: { persistEnvironment: false } } as PromptOptions['settings'] },
      { getToolPermissionContext: permission, tools: [], settings: { bash: { persistEnvironment: true } } as PromptOptions['settings'] },
      { getToolPermissionContext: permission, tools: [], settings: { scheduleWakeup: { minDelaySeconds: 5, maxDelaySeconds: 50 } } as PromptOptions['settings'] },
    ];
    let described = 0;
    for (const env of [undefined, '1234']) {
      if (env === undefined) delete process.env.TOOLGATE_FILE_READ_MAX_OUTPUT_TOKENS;
      else process.env.TOOLGATE_FILE_READ_MAX_OUTPUT_TOKENS = env;
      for (const [i, entry] of BASE_TOOL_ENTRIES.entries()) {
        if (!entry.describe) continue;
        described++;
        const describe = await entry.describe();
        for (const options of variants) expect(await describe(options), entry.name).toBe(await tools[i]!.prompt(options));
      }
    }
    // Every built-in: a first request loads no tool module (Agent's list and ScheduleWakeup's bounds included).
    expect(described / 2).toBe(BASE_TOOL_ENTRIES.length);
  });

  it('makes the first request from stubs byte for byte as from the live tools, without loading a tool module', async () => {
    const tools = await live();
    const loads: string[] = [];
    const lazy = stubs(loads);
    const options = { getToolPermissionContext: permission, model: 'claude-sonnet-4-6', services: { agentDefinitions: { definitions: [], readFiles: false } } };
    const [a, b] = await Promise.all([toolsToAPI(lazy as Tools, options), toolsToAPI(tools, options)]);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(loads).toEqual([]);
    // Strict mode off (another model): the same.
    const old = { ...options, model: 'claude-3-5-haiku-20241022' };
    expect(JSON.stringify(await toolsToAPI(lazy as Tools, old))).toBe(JSON.stringify(await toolsToAPI(tools, old)));
  });

  it('is the tool once loaded, and refuses to guess a member before', async () => {
    const loads: string[] = [];
    const read = stubs(loads).find((t) => t.name === 'Read')!;
    expect(() => read.isReadOnly({})).toThrow(/"isReadOnly" was read before its module loaded/);
    expect(read.isEnabled()).toBe(true);
    await whenToolLoaded(read);
    expect(whenToolLoaded(read)).toBeUndefined();
    const real = (await live()).find((t) => t.name === 'Read')!;
    expect(read.call).toBe(real.call);
    expect(read.inputSchema).toBe(real.inputSchema);
    expect(read.inputJSONSchema).toBeUndefined();
    expect({ ...read }).toEqual({ ...real });
  });

  it("never stands in the build machine's output limit: Bash's comes from the environment at its load", async () => {
    const bash = stubs([]).find((t) => t.name === 'Bash')!;
    expect(Object.hasOwn(toolManifest().get('Bash')!.data, 'maxResultSizeChars')).toBe(false);
    expect(() => bash.maxResultSizeChars).toThrow(/"maxResultSizeChars" was read before its module loaded/);
    await whenToolLoaded(bash);
    expect(bash.maxResultSizeChars).toBe((await live()).find((t) => t.name === 'Bash')!.maxResultSizeChars);
  });
});
