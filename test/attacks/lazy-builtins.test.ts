/**
 * docs/security.md §13: built-ins that load when called (src/registry/lazy-tool.ts). The manifest answers for the
 * catalogue's own modules only, and a call is validated, judged and run by the loaded tool, never by the stub.
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { BASE_TOOL_ENTRIES, getAllBaseTools, type BaseToolEntry } from '../../src/registry/base-tools.js';
import { lazyTool } from '../../src/registry/lazy-tool.js';
import { toolManifest } from '../../src/registry/tool-manifest.js';
import { buildTool } from '../../src/tool/build-tool.js';
import { whenToolLoaded } from '../../src/tool/module-load.js';
import { makeContext, makeTempDir, runTool } from '../../src/tools/shared/test-helpers/run-tool.js';

const readEntry = BASE_TOOL_ENTRIES.find((e) => e.name === 'Read')!;
const stubOfRead = () => lazyTool({ entry: toolManifest().get('Read')!, load: readEntry.load, ...(readEntry.describe ? { describe: readEntry.describe } : {}) });

let dir: string;
beforeAll(async () => {
  dir = await makeTempDir('toolgate-lazy-');
  writeFileSync(path.join(dir, 'a.txt'), 'alpha\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('lazy built-ins (security §13)', () => {
  it("an embedder's catalogue entry named like a built-in is its own tool, never the manifest's stub of the built-in", async () => {
    const own = buildTool({
      name: 'Read',
      inputSchema: z.object({ secret: z.string() }),
      maxResultSizeChars: 100,
      prompt: async () => 'The embedder’s own Read.',
      call: async () => ({ data: 'own' }),
      mapToolResultToToolResultBlockParam: (d, id) => ({ type: 'tool_result', tool_use_id: id, content: String(d) }),
    });
    const entries: BaseToolEntry[] = [{ name: 'Read', load: async () => own }];
    // The standard catalogue's stub of Read made first, in the same process (the order a server embedding both meets):
    // a stub remembered by name was handed to the embedder's entry.
    const standard = await getAllBaseTools({ lazy: true, env: {} });
    const builtinRead = standard.find((t) => t.name === 'Read')!;
    const [tool] = await getAllBaseTools({ entries, lazy: true, env: {} });
    // The manifest's schema and prompt describe the catalogue's Read module, not this one.
    expect(tool === own).toBe(true);
    expect(whenToolLoaded(tool)).toBeUndefined();
    // And the other way round: the standard pool's Read stays the built-in's stub.
    // (Identity compared by ===: a stub refuses the property walk a matcher's diff makes before its module loads.)
    expect((await getAllBaseTools({ lazy: true, env: {} })).find((t) => t.name === 'Read') === builtinRead).toBe(true);
    expect(builtinRead === (own as unknown)).toBe(false);
  });

  it('a catalogue module that hands over a tool of another name is refused, not described as the entry', async () => {
    const other = (await BASE_TOOL_ENTRIES.find((e) => e.name === 'Glob')!.load());
    const stub = lazyTool({ entry: toolManifest().get('Read')!, load: async () => other });
    await expect(whenToolLoaded(stub)).rejects.toThrow(/gave a tool named "Glob"/);
    expect(() => stub.isReadOnly({})).toThrow(/before its module loaded/);
  });

  it('a call of a stub is checked by the loaded tool: the same answer as the tool itself, for good and bad input', async () => {
    const real = await readEntry.load();
    for (const input of [{ file_path: path.join(dir, 'a.txt') }, { file_path: 42 }, { file_path: path.join(dir, 'a.txt'), offset: -3 }]) {
      const viaStub = await runTool(stubOfRead(), input, makeContext(dir));
      const viaTool = await runTool(real, input, makeContext(dir));
      expect(viaStub.isError, JSON.stringify(input)).toBe(viaTool.isError);
      expect(viaStub.text).toBe(viaTool.text);
    }
  });
});
