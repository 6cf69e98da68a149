import { describe, expect, it } from 'vitest';
import { parseHooksSettings } from './parse-hooks-settings.js';

const FILE = '/repo/.claude/settings.json';
const parse = (hooks: unknown, file: string | null = FILE) =>
  parseHooksSettings([{ source: 'projectSettings', file: file ?? undefined, hooks }]);

describe('parseHooksSettings', () => {
  it('parses Claude Code’s format and merges every source in order, remembering where each group came from', () => {
    const r = parseHooksSettings([
      { source: 'userSettings', file: '/home/u/.claude/settings.json', hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'a.sh', timeout: 30 }] }] } },
      {
        source: 'projectSettings',
        file: FILE,
        hooks: {
          PreToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'fmt', args: ['--check'], if: 'Edit(*.ts)', failClosed: true }] }],
          PostToolUse: [{ hooks: [{ type: 'http', url: 'http://127.0.0.1:9/h', headers: { A: 'b' }, allowedEnvVars: ['X'] }] }],
        },
      },
    ]);
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
    expect(r.config.PreToolUse).toEqual([
      { matcher: 'Bash', hooks: [{ type: 'command', command: 'a.sh', timeout: 30 }], source: 'userSettings', file: '/home/u/.claude/settings.json', path: 'hooks.PreToolUse[0]' },
      {
        matcher: 'Edit|Write',
        hooks: [{ type: 'command', command: 'fmt', args: ['--check'], if: 'Edit(*.ts)', failClosed: true }],
        source: 'projectSettings',
        file: FILE,
        path: 'hooks.PreToolUse[0]',
      },
    ]);
    expect(r.config.PostToolUse?.[0]?.hooks[0]).toEqual({ type: 'http', url: 'http://127.0.0.1:9/h', headers: { A: 'b' }, allowedEnvVars: ['X'] });
  });

  it('names the file, event and index of every dropped entry', () => {
    const r = parse({
      PreToolUse: [
        { matcher: 'Bash', hooks: [{ type: 'command' }, { type: 'command', command: 'ok.sh', timeout: '30' }, { command: 'x.sh' }, { type: 'shell', command: 'y' }] },
        { matcher: '(unclosed', hooks: [] },
        { matcher: { tool_name: 'Bash' }, hooks: [] },
        { matcher: 'Bash', type: 'command', command: 'direct.sh' },
        'oops',
      ],
      PostToolUse: { matcher: 'Bash' },
    });
    expect(r.errors).toEqual([
      `${FILE}: hooks.PreToolUse[0].hooks[0].command: must be a non-empty string (got nothing)`,
      `${FILE}: hooks.PreToolUse[0].hooks[1].timeout: must be a positive number of seconds (got string "30")`,
      `${FILE}: hooks.PreToolUse[0].hooks[2].type: missing; expected one of command, http, mcp_tool, prompt, agent (add "type": "command")`,
      `${FILE}: hooks.PreToolUse[0].hooks[3].type: must be one of command, http, mcp_tool, prompt, agent (got string "shell")`,
      expect.stringMatching(/^\/repo\/\.claude\/settings\.json: hooks\.PreToolUse\[1\]\.matcher: invalid regular expression "\(unclosed": /),
      `${FILE}: hooks.PreToolUse[2].matcher: must be a string (the object form {"tool_name": …} is an old format; use a string such as "Bash" or "Edit|Write") (got an object)`,
      `${FILE}: hooks.PreToolUse[3]: a handler was placed directly in the matcher group; wrap it: { "matcher": …, "hooks": [ { "type": "command", "command": … } ] }`,
      `${FILE}: hooks.PreToolUse[4]: a matcher group must be an object { "matcher": …, "hooks": [...] } (got string "oops")`,
      `${FILE}: hooks.PostToolUse: must be an array of matcher groups like [{ "matcher": "Bash", "hooks": [...] }] (got an object)`,
    ]);
    // The valid group survives with no handlers rather than vanishing silently.
    expect(r.config.PreToolUse).toHaveLength(1);
    expect(r.config.PreToolUse?.[0]?.hooks).toEqual([]);
  });

  it('warns about unknown keys, misspelled events, events toolgate never fires and handler types it cannot run', () => {
    const r = parse(
      {
        pretooluse: [],
        Notification: [{ hooks: [{ type: 'command', command: 'hi' }] }],
        PreCompact: [{ hooks: [{ type: 'command', command: 'hi' }] }],
        SessionStart: [{ hooks: [{ type: 'command', command: 'hi' }] }],
        PreToolUse: [{ matcher: 'Bash', comment: 'x', hooks: [{ type: 'command', command: 'a', timout: 5, once: true }, { type: 'prompt', prompt: 'p' }] }],
      },
      null,
    );
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([
      'projectSettings: hooks.pretooluse: unknown hook event, ignored (did you mean "PreToolUse"?)',
      'projectSettings: hooks.Notification: toolgate does not fire Notification (a Claude Code session event); kept but never run',
      'projectSettings: hooks.PreToolUse[0]: unknown key "comment" ignored (a matcher group has "matcher" and "hooks")',
      'projectSettings: hooks.PreToolUse[0].hooks[0]: unknown key "timout" ignored for a command hook',
      'projectSettings: hooks.PreToolUse[0].hooks[0].once: only meaningful in skill frontmatter; toolgate runs this hook every time',
      'projectSettings: hooks.PreToolUse[0].hooks[1]: "prompt" hooks are not supported by toolgate; this hook is skipped',
    ]);
    expect(r.config.SessionStart).toHaveLength(1);
    expect(r.config.PreToolUse?.[0]?.hooks.map((h) => h.type)).toEqual(['command', 'prompt']);
  });

  it('rejects a non-object hooks value and ignores an absent one', () => {
    expect(parse([1]).errors).toEqual([`${FILE}: "hooks" must be an object mapping event names to matcher groups (got an array)`]);
    expect(parse(undefined)).toEqual({ config: {}, errors: [], warnings: [] });
  });

  it('never lets a __proto__ key pollute anything', () => {
    const r = parse(JSON.parse('{"__proto__": [{"hooks": []}], "PreToolUse": [{"hooks": [{"type":"command","command":"a","__proto__":{"x":1}}]}]}'));
    expect(r.errors).toEqual([]);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(r.warnings[0]).toContain('hooks.__proto__: unknown hook event');
  });
});

describe('describeHooks', () => {
  it('lists every handler with where it came from and whether toolgate runs it', async () => {
    const { describeHooks } = await import('./describe-hooks.js');
    const r = parse({
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'a.sh', args: ['x'], failClosed: true, timeout: 5 }, { type: 'agent', prompt: 'p' }] }],
      Stop: [{ hooks: [{ type: 'command', command: 'stop.sh' }] }],
    });
    expect(describeHooks(r.config).map((h) => [h.event, h.matcher, h.path, h.target ?? h.type, h.failClosed, h.status])).toEqual([
      ['PreToolUse', 'Bash', 'hooks.PreToolUse[0].hooks[0]', 'a.sh x', true, 'runs'],
      ['PreToolUse', 'Bash', 'hooks.PreToolUse[0].hooks[1]', 'agent', false, 'handler type not supported'],
      ['Stop', '*', 'hooks.Stop[0].hooks[0]', 'stop.sh', false, 'event not fired by toolgate'],
    ]);
  });
});
