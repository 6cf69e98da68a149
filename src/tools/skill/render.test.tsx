import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { afterAll, describe, expect, it } from 'vitest';
import { runToolUse } from '../../execution/pipeline.js';
import { parseRules } from '../../permissions/permission-context.js';
import { allowAll, assistantMessage, makeContext, tempSession, toolUse } from '../../../test/helpers/execution.js';
import { createSkillTool, type SkillCatalog, type SkillOutput } from './index.js';

const session = tempSession('toolgate-skill-views-');
afterAll(() => session.cleanup());
const options = { columns: 100, verbose: false, cwd: '/' };

// A catalogue of two fixed entries: the views draw what any catalogue's call returns.
const catalog: SkillCatalog = {
  listForModel: async () => [{ name: 'commit', description: 'Commit', kind: 'command' }],
  refusal: async (name) => (name === 'commit' || name === 'notes' ? undefined : 'unknown'),
  invokeForModel: async ({ name }) =>
    name === 'commit'
      ? { name, kind: 'command', content: 'Commit the changes.', allowedTools: parseRules(['Bash(git add *)', 'Bash(git commit *)'], 'allow', 'projectSettings'), invalidAllowedTools: ['Bash(('] }
      : { name, kind: 'skill', content: 'Notes.', allowedTools: [] },
};
const Skill = createSkillTool(catalog);

async function load(skill: string): Promise<SkillOutput> {
  const outcome = await runToolUse(toolUse('Skill', { skill, args: 'x' }), assistantMessage, allowAll, makeContext([Skill], session.dir));
  expect(outcome.isError).toBe(false);
  return outcome.output as SkillOutput;
}

describe('Skill views', () => {
  it('draw the call as a person would type it, then what loaded and the tools it narrows to', async () => {
    const views = await Skill.loadViews!();
    expect(render(<Box>{views.renderToolUseMessage!({ skill: '/commit', args: '-m fix' }, options)}</Box>).lastFrame()).toBe('/commit -m fix');
    const draw = (output: SkillOutput) => render(<Box>{views.renderToolResultMessage!(output, [], { ...options, input: {} })}</Box>).lastFrame();
    expect(draw(await load('commit'))).toBe(
      'Loaded command commit\nAllowed tools while it runs: Bash(git add *), Bash(git commit *)\nUnreadable allowed-tools, left out: Bash((',
    );
    expect(draw(await load('notes'))).toBe('Loaded skill notes');
  });
});
