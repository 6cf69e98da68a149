import { describe, expect, it } from 'vitest';
import { makeMcpTestTool, makeTestTool } from '../../test/helpers/tools.js';
import { createPermissionContext, parseRules } from './permission-context.js';
import { domainPatternOf, hostMatchesDomainPattern, hostOfUrl } from './domains.js';
import {
  formatPermissionRule,
  parsePermissionRule,
  PermissionRuleParseError,
  tryParsePermissionRule,
  validatePermissionRule,
} from './permission-rule.js';
import { filterToolsByDenyRules, findToolLevelRule, toolMatchesRulePattern } from './tool-rule-match.js';

describe('parsePermissionRule / formatPermissionRule', () => {
  it.each([
    ['Bash', { toolName: 'Bash' }],
    ['Bash()', { toolName: 'Bash' }],
    ['Bash(*)', { toolName: 'Bash' }],
    ['Bash(npm run build)', { toolName: 'Bash', ruleContent: 'npm run build' }],
    ['Bash(npm run test:*)', { toolName: 'Bash', ruleContent: 'npm run test:*' }],
    ['Bash(git commit *)', { toolName: 'Bash', ruleContent: 'git commit *' }],
    ['Read(./.env)', { toolName: 'Read', ruleContent: './.env' }],
    ['Edit(//tmp/**)', { toolName: 'Edit', ruleContent: '//tmp/**' }],
    ['WebFetch(domain:example.com)', { toolName: 'WebFetch', ruleContent: 'domain:example.com' }],
    ['mcp__github', { toolName: 'mcp__github' }],
    ['mcp__github__*', { toolName: 'mcp__github__*' }],
    ['mcp__github__get_issue', { toolName: 'mcp__github__get_issue' }],
    ['Task', { toolName: 'Agent' }],
    ['Task(Explore)', { toolName: 'Agent', ruleContent: 'Explore' }],
    ['KillShell', { toolName: 'TaskStop' }],
    ['KillBash', { toolName: 'TaskStop' }],
    ['Bash(echo \\(hi\\))', { toolName: 'Bash', ruleContent: 'echo (hi)' }],
    ['Bash(echo a\\\\b)', { toolName: 'Bash', ruleContent: 'echo a\\b' }],
    ['Bash(echo a\\nb)', { toolName: 'Bash', ruleContent: 'echo a\\nb' }],
    ['  Read  ', { toolName: 'Read' }],
  ])('%s', (text, value) => {
    expect(parsePermissionRule(text)).toEqual(value);
  });

  it.each(['', '   ', '(x)', 'Bash(unclosed', 'Bash)x(', 'Bash(x) trailing', 'Ba sh', 'Bash(x\\)', 'Read)'])('rejects %j', (text) => {
    expect(() => parsePermissionRule(text)).toThrow(PermissionRuleParseError);
    expect(tryParsePermissionRule(text).ok).toBe(false);
  });

  it.each([
    { toolName: 'Bash', ruleContent: 'echo (hi) && f() { :; }' },
    { toolName: 'Bash', ruleContent: 'printf "\\)"' },
    { toolName: 'Bash', ruleContent: 'a\\(b' },
    { toolName: 'Bash', ruleContent: 'trailing\\' },
    { toolName: 'Read', ruleContent: '//weird (dir)/**' },
    { toolName: 'WebFetch' },
  ])('round-trips %j', (value) => {
    const text = formatPermissionRule(value);
    expect(parsePermissionRule(text)).toEqual(value);
    expect(formatPermissionRule(parsePermissionRule(text))).toBe(text);
  });

  it('formats escaped parentheses', () => {
    expect(formatPermissionRule({ toolName: 'Bash', ruleContent: 'echo (x)' })).toBe('Bash(echo \\(x\\))');
  });

  it('validates globs by behavior', () => {
    expect(validatePermissionRule({ toolName: 'mcp__*' }, 'deny').errors).toEqual([]);
    expect(validatePermissionRule({ toolName: '*' }, 'ask').errors).toEqual([]);
    expect(validatePermissionRule({ toolName: 'mcp__*' }, 'allow').errors).not.toEqual([]);
    expect(validatePermissionRule({ toolName: 'mcp__gh__get_*' }, 'allow').errors).toEqual([]);
    expect(validatePermissionRule({ toolName: 'Bogus' }, 'deny').warnings.join()).toMatch(/not a known tool/);
    expect(validatePermissionRule({ toolName: 'WebFetch', ruleContent: 'example.com' }, 'allow').warnings.join()).toMatch(/domain/);
  });
});

describe('tool-level rules and MCP', () => {
  const gh = makeMcpTestTool('github', 'get_issue');
  const ghCreate = makeMcpTestTool('github', 'create_issue');
  const slack = makeMcpTestTool('slack', 'post');
  const ghx = makeMcpTestTool('githubx', 'get_issue');
  it.each([
    ['mcp__github', gh, true],
    ['mcp__github', ghx, false],
    ['mcp__github__*', ghCreate, true],
    ['mcp__github__get_issue', gh, true],
    ['mcp__github__get_issue', ghCreate, false],
    ['mcp__github__get_*', gh, true],
    ['mcp__github__get_*', ghCreate, false],
    ['mcp__*', slack, true],
    ['*', slack, true],
    ['Bash', slack, false],
  ] as const)('%s matches %s: %s', (rule, tool, expected) => {
    expect(toolMatchesRulePattern(tool, parsePermissionRule(rule))).toBe(expected);
  });

  it('content rules are not tool-level rules', () => {
    expect(toolMatchesRulePattern(makeTestTool('Bash'), parsePermissionRule('Bash(ls)'))).toBe(false);
  });

  it('deny globs remove tools from the pool', () => {
    const ctx = createPermissionContext({ cwd: '/tmp', rules: parseRules(['mcp__github__*', 'mcp__slack'], 'deny', 'userSettings') });
    expect(filterToolsByDenyRules([gh, ghCreate, slack, ghx, makeTestTool('Read')], ctx).map((t) => t.name)).toEqual([
      'mcp__githubx__get_issue',
      'Read',
    ]);
    expect(findToolLevelRule(ctx.alwaysDenyRules, slack)?.ruleValue.toolName).toBe('mcp__slack');
  });
});

describe('WebFetch domains', () => {
  it.each([
    ['domain:example.com', 'https://example.com/x', true],
    ['domain:example.com', 'https://EXAMPLE.com./x', true],
    ['domain:example.com', 'https://www.example.com/', false],
    ['domain:example.com', 'https://example.com.evil.net/', false],
    ['domain:example.com', 'https://evil.net/?u=https://example.com', false],
    ['domain:example.com', 'https://example.com@evil.net/', false],
    ['domain:example.com', 'https://user:pw@example.com:8443/', true],
    ['domain:*.example.com', 'https://api.example.com', true],
    ['domain:*.example.com', 'https://a.b.example.com', true],
    ['domain:*.example.com', 'https://example.com', false],
    ['domain:*.example.com', 'https://notexample.com', false],
    ['domain:api.*.example.com', 'https://api.eu.example.com', true],
    ['domain:api.*.example.com', 'https://api.a.b.example.com', false],
    ['domain:bücher.de', 'https://xn--bcher-kva.de/', true],
  ])('%s vs %s → %s', (content, url, expected) => {
    const host = hostOfUrl(url);
    expect(host.ok).toBe(true);
    if (!host.ok) return;
    expect(hostMatchesDomainPattern(host.host, domainPatternOf(content)!)).toBe(expected);
  });
  it('rejects what it cannot parse', () => {
    expect(hostOfUrl('not a url').ok).toBe(false);
    expect(hostOfUrl('file:///etc/passwd').ok).toBe(false);
    expect(domainPatternOf('example.com')).toBeUndefined();
  });
});
