// Every built-in definition a strict-capable model would receive is accepted by strict mode's rules: the API rejects
// the whole request (not just the tool) when one strict schema leaves the subset.
import { describe, expect, it } from 'vitest';
import { getAllBaseTools } from '../src/registry/base-tools.js';
import { toolsToAPI } from '../src/tool/api-format.js';
import { getEmptyToolPermissionContext } from '../src/tool/permission-types.js';
import { strictSchemaProblems } from '../src/tool/strict-schema.js';

describe('built-in tool definitions in strict mode', () => {
  it.each(['claude-sonnet-4-5', 'claude-opus-4-1', 'claude-haiku-4-5'])('%s: every strict definition follows strict mode’s schema rules', async (model) => {
    const tools = await getAllBaseTools();
    const context = getEmptyToolPermissionContext('/work');
    const definitions = await toolsToAPI(tools, { model, getToolPermissionContext: () => context });
    const strict = definitions.filter((d) => d.strict === true);
    // The tools that ask for strict mode and can be expressed in it get it (not a vacuous pass).
    expect(strict.map((d) => d.name)).toEqual(expect.arrayContaining(['Bash', 'Read', 'Edit', 'Write', 'Grep']));
    for (const d of strict) expect(strictSchemaProblems(d.input_schema), d.name).toEqual([]);
  });

  it('models without strict support get the schemas as they are, without strict', async () => {
    const tools = await getAllBaseTools();
    const context = getEmptyToolPermissionContext('/work');
    const definitions = await toolsToAPI(tools, { model: 'claude-3-5-haiku-20241022', getToolPermissionContext: () => context });
    expect(definitions.some((d) => d.strict === true)).toBe(false);
  });
});
