/**
 * The registry remembers each built-in's loaded module (registry/base-tools.ts), so a pool assembled every turn does
 * not import again. `getAllBaseTools({ entries })` (exported by `toolgate/internals`) takes an embedder's own
 * catalogue — a stricter `Bash`, a `Read` confined to one folder — beside the standard one in the same process. The
 * memo was keyed by the tool's name: whichever catalogue loaded a name first gave its tool to the other, so an
 * embedder's confined tool was silently the built-in (or the built-in runtime got the embedder's). A loaded module is
 * remembered per catalogue entry. Real registry, real built-in modules; each case fails with the name as the key.
 */
import { describe, expect, it } from 'vitest';
import { getAllBaseTools, loadBaseTool, type BaseToolEntry } from '../../src/registry/base-tools.js';
import type { AnyTool } from '../../src/tool/tool.js';

/** An embedder's own tool under a built-in's name (only its identity matters here). */
function ownEntry(name: string): { entry: BaseToolEntry; tool: AnyTool } {
  const tool = { name, confined: true } as unknown as AnyTool;
  return { entry: { name, load: () => Promise.resolve(tool) }, tool };
}

describe("an embedder's catalogue and the built-in one keep their own tools", () => {
  it('the built-in Read loaded first: the embedder still gets its own Read', async () => {
    const builtIn = await loadBaseTool('Read');
    expect(builtIn?.name).toBe('Read');
    const { entry, tool } = ownEntry('Read');
    const [mine] = await getAllBaseTools({ entries: [entry] });
    expect(mine).toBe(tool);
  });

  it("the embedder's Bash loaded first: the built-in catalogue still gets the built-in Bash", async () => {
    const { entry, tool } = ownEntry('Bash');
    expect((await getAllBaseTools({ entries: [entry] }))[0]).toBe(tool);
    const bash = await loadBaseTool('Bash');
    expect(bash).not.toBe(tool);
    expect(typeof bash?.checkPermissions).toBe('function');
    expect((await getAllBaseTools()).find((t) => t.name === 'Bash')).toBe(bash);
  });
});
