import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { callTool, makeProject, type TestProject } from '../bash/test-helpers/project.js';
import { createTeam, newInbox, TEAM_LEAD, type Team, type Teammate } from '../shared/team.js';
import { TaskStopTool, type TaskStopData } from '../task-stop/index.js';
import { TeamCreateTool } from '../team-create/index.js';
import { TeamDeleteTool, type TeamDeleteOutput } from '../team-delete/index.js';
import { SendMessageTool, type SendMessageOutput } from './index.js';

let project: TestProject;
beforeEach(() => {
  project = makeProject();
});
afterEach(async () => {
  await project.cleanup();
});

const textOf = (m: { content: unknown }) => JSON.stringify(m.content);
/** The model's text of a call that fails, whether before call() or in it. */
async function refusal(tool: typeof SendMessageTool | typeof TeamCreateTool | typeof TeamDeleteTool, input: Record<string, unknown>, context: ToolUseContext): Promise<string> {
  try {
    const r = await callTool(tool, input, context);
    return r.block.is_error === true ? r.text : `not refused: ${r.text}`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** A teammate in the team, with a running task of the registry standing for its agent. */
function teammate(team: Team, name: string): { member: Teammate; context: ToolUseContext; stopped: () => boolean } {
  const agentId = `agent-${name}`;
  const member: Teammate = { name, agentId, agentType: 'general-purpose', inbox: newInbox(), status: 'idle' };
  team.members.set(name, member);
  let stop: () => void = () => {};
  let killed = false;
  const ended = new Promise<{ status: 'killed' }>((resolve) => (stop = () => resolve({ status: 'killed' })));
  project.tasks.register(
    { id: agentId, type: 'local_agent', label: `${name}: work`, outputFile: '/dev/null', startedAt: Date.now(), ended, kill: async () => ((killed = true), stop(), void (member.status = 'ended')), readOutput: () => ({ text: '', truncated: false, sizeBytes: 0 }) },
    { backgroundedBy: 'request' },
  );
  return { member, context: { ...project.context, agentDepth: 1, agentId }, stopped: () => killed };
}

describe('SendMessage', () => {
  it('without a team there is no one to write to', async () => {
    expect(await refusal(SendMessageTool, { to: 'x', message: 'hi' }, project.context)).toMatch(/no agent team in this session/);
  });

  it('the lead writes to a teammate, a teammate to the lead, each named by who runs the call and marked', async () => {
    const team = createTeam(project.context, 't', '', true);
    const writer = teammate(team, 'writer');
    const r = await callTool<SendMessageOutput>(SendMessageTool, { to: 'writer', message: 'write bye.txt', summary: 'next' }, project.context);
    expect(r.data).toEqual({ success: true, message: 'Message sent to "writer".', from: TEAM_LEAD, recipients: ['writer'] });
    const [toWriter] = writer.member.inbox.drain();
    expect(textOf(toWriter!)).toContain('"text":"<teammate-message from=\\"team-lead\\" summary=\\"next\\">\\nwrite bye.txt\\n</teammate-message>');

    const back = await callTool<SendMessageOutput>(SendMessageTool, { to: TEAM_LEAD, message: 'done' }, writer.context);
    expect(back.data.from).toBe('writer');
    const [toLead] = project.notifications.drain();
    expect(textOf(toLead!)).toContain('<teammate-message from=\\"writer\\">\\ndone\\n');
  });

  it('a broadcast reaches every other live teammate; an unknown, ended or own name is refused with who can be reached', async () => {
    const team = createTeam(project.context, 't', '', true);
    const a = teammate(team, 'a');
    const b = teammate(team, 'b');
    const c = teammate(team, 'c');
    c.member.status = 'ended';
    const r = await callTool<SendMessageOutput>(SendMessageTool, { to: '*', message: 'stand-up' }, a.context);
    expect(r.data.recipients).toEqual(['b']);
    expect(b.member.inbox.size).toBe(1);
    expect(a.member.inbox.size).toBe(0);
    expect(await refusal(SendMessageTool, { to: 'zed', message: 'x' }, a.context)).toMatch(/No teammate is named "zed". Recipients: "team-lead", "b", or "\*"/);
    expect(await refusal(SendMessageTool, { to: 'c', message: 'x' }, a.context)).toMatch(/"c" has ended/);
    expect(await refusal(SendMessageTool, { to: 'a', message: 'x' }, a.context)).toMatch(/to yourself/);
  });

  it('a sub-agent that is not a teammate cannot send, nor pass as one: the sender is never a field of the input', async () => {
    const team = createTeam(project.context, 't', '', true);
    teammate(team, 'writer');
    const stranger = { ...project.context, agentDepth: 1, agentId: 'agent-other' };
    expect(await refusal(SendMessageTool, { to: TEAM_LEAD, message: 'hi' }, stranger)).toMatch(/Only the lead and its teammates/);
    expect(await refusal(SendMessageTool, { to: TEAM_LEAD, message: 'hi', from: 'writer' }, stranger)).toMatch(/from/);
  });
});

describe('TeamCreate and TeamDelete', () => {
  it('one team per session, made and ended by the lead only; TeamDelete stops the live teammates; TaskStop finds one by name', async () => {
    const sub = { ...project.context, agentDepth: 1, agentId: 'agent-x' };
    expect(await refusal(TeamCreateTool, { team_name: 'crew' }, sub)).toMatch(/Only the lead/);
    await callTool(TeamCreateTool, { team_name: 'crew' }, project.context);
    expect(await refusal(TeamCreateTool, { team_name: 'again' }, project.context)).toMatch(/already has a team \("crew"\)/);
    const team = createTeam(project.context, 'ignored', '', false);
    expect(team.name).toBe('crew');
    const a = teammate(team, 'a');
    const b = teammate(team, 'b');
    const stop = await callTool<TaskStopData>(TaskStopTool, { task_id: 'a' }, project.context);
    expect(stop.data).toMatchObject({ task_id: 'agent-a', status: 'killed' });
    expect(a.stopped()).toBe(true);
    expect(await refusal(TeamDeleteTool, {}, b.context)).toMatch(/Only the lead/);
    const r = await callTool<TeamDeleteOutput>(TeamDeleteTool, {}, project.context);
    expect(r.data).toMatchObject({ team_name: 'crew', stopped: ['b'] });
    expect(b.stopped()).toBe(true);
    expect(await refusal(TeamDeleteTool, {}, project.context)).toMatch(/no team to delete/);
    expect(await refusal(SendMessageTool, { to: 'b', message: 'x' }, project.context)).toMatch(/no agent team/);
  });
});
