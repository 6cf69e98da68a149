/**
 * `check --batch` decides every line as `toolgate check` would decide it alone: whatever the batch shares between
 * lines (compiled rule sets, one chunk's filesystem answers, remembered answers re-checked) never changes a decision.
 * A varied corpus — deny, ask and allow rules, path rules anchored every way, rule sets that differ per line, Read
 * denies followed through pipes and redirections, links, every mode, repeats under new ids, bad lines — answered in
 * chunks of several sizes, each answer compared with a fresh engine's decision of that line alone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchAnswers } from './check-batch.js';
import { CheckEngine } from './check-request.js';
import { createCheckToolResolver } from './check-tools.js';
import { makeCheckProject } from './test-helpers/check-project.js';

let tmp: string;
let proj: string;
let home: string;

beforeAll(() => {
  ({ tmp, proj, home } = makeCheckProject('tg-check-batch-equal-'));
  fs.mkdirSync(path.join(proj, 'src', 'deep'), { recursive: true });
  fs.mkdirSync(path.join(proj, 'secrets'), { recursive: true });
  fs.writeFileSync(path.join(proj, 'secrets', 'key.pem'), 'k');
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
  fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'k');
  fs.symlinkSync(path.join(proj, '.env'), path.join(proj, 'link'));
  fs.symlinkSync(path.join(proj, 'secrets'), path.join(proj, 'src', 'vault'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

type Rule = { source: string; behavior: string; rule: string };

function corpus(): string[] {
  const p = (...parts: string[]) => path.join(proj, ...parts);
  const calls: { tool: string; input: Record<string, unknown> }[] = [
    { tool: 'Read', input: { file_path: p('src', 'a.ts') } },
    { tool: 'Read', input: { file_path: p('.env') } },
    { tool: 'Read', input: { file_path: p('link') } },
    { tool: 'Read', input: { file_path: p('src', 'vault', 'key.pem') } },
    { tool: 'Read', input: { file_path: path.join(home, '.ssh', 'id_rsa') } },
    { tool: 'Read', input: { file_path: '/etc/hosts' } },
    { tool: 'Edit', input: { file_path: p('src', 'a.ts'), old_string: 'a', new_string: 'b' } },
    { tool: 'Write', input: { file_path: p('src', 'deep', 'new.ts'), content: '' } },
    { tool: 'Write', input: { file_path: p('.git', 'config'), content: '' } },
    { tool: 'Write', input: { file_path: p('secrets', 'new.pem'), content: '' } },
    { tool: 'Glob', input: { pattern: '**/*.ts', path: proj } },
    { tool: 'Grep', input: { pattern: 'SECRET', path: proj } },
    { tool: 'WebFetch', input: { url: 'https://docs.example.com/x', prompt: 'p' } },
    { tool: 'WebFetch', input: { url: 'https://evil.com/', prompt: 'p' } },
    { tool: 'mcp__github__get_issue', input: { n: 1 } },
    { tool: 'Bash', input: { command: 'git status' } },
    { tool: 'Bash', input: { command: 'cat .env | head -1' } },
    { tool: 'Bash', input: { command: 'grep -r SECRET . | sort' } },
    { tool: 'Bash', input: { command: 'cat link > /tmp/out.txt' } },
    { tool: 'Bash', input: { command: 'head src/vault/key.pem' } },
    { tool: 'Bash', input: { command: 'npm run case3 && rg foo src | head -20' } },
    { tool: 'Bash', input: { command: 'git push origin main' } },
    { tool: 'Bash', input: { command: 'ls -la src > out.txt' } },
    { tool: 'Bash', input: { command: 'rm -rf src/deep' } },
  ];
  const shared: Rule[] = [
    { source: 'projectSettings', behavior: 'allow', rule: 'Edit(./src/**)' },
    { source: 'userSettings', behavior: 'deny', rule: 'Read(./.env)' },
    { source: 'projectSettings', behavior: 'allow', rule: 'Bash(npm run case3:*)' },
    { source: 'localSettings', behavior: 'ask', rule: 'Bash(git push:*)' },
    { source: 'policySettings', behavior: 'deny', rule: 'WebFetch(domain:evil.com)' },
  ];
  const own = (i: number): Rule[] => [
    { source: 'userSettings', behavior: 'deny', rule: i % 2 === 0 ? 'Read(./.env)' : 'Read(**/.env)' },
    { source: 'projectSettings', behavior: 'allow', rule: `Edit(./src/case${i % 5}/**)` },
    { source: 'projectSettings', behavior: 'allow', rule: i % 3 === 0 ? 'Edit(/src/**)' : `Bash(npm run case${i % 7}:*)` },
    { source: 'userSettings', behavior: i % 4 === 0 ? 'ask' : 'deny', rule: i % 2 === 0 ? 'Read(~/.ssh/**)' : `Read(/${proj}/secrets/**)` },
    { source: 'localSettings', behavior: 'ask', rule: i % 5 === 0 ? 'Bash(git push:*)' : 'Read(secrets/**)' },
    ...(i % 6 === 0 ? [{ source: 'projectSettings', behavior: 'allow', rule: 'WebFetch(domain:*.example.com)' }, { source: 'projectSettings', behavior: 'allow', rule: 'mcp__github' }] : []),
  ];
  const modes = ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions', 'auto'];
  const lines: string[] = [];
  for (let i = 0; i < 400; i++) {
    const call = calls[(i * 7) % calls.length]!;
    const rules = i % 3 === 0 ? shared : own(i);
    const mode = modes[Math.floor(i / calls.length) % modes.length];
    // Repeats under new ids (a suite's cases), the id first or last, and lines with no id.
    const request = { ...call, cwd: proj, home, mode, rules };
    if (i % 4 === 0) lines.push(`{"id":${i},${JSON.stringify(request).slice(1)}`);
    else if (i % 4 === 1) lines.push(`${JSON.stringify(request).slice(0, -1)},"id":"case-${i}"}`);
    else lines.push(JSON.stringify(request));
  }
  lines.splice(50, 0, '', 'not json', '{"tool":"Read","input":{"file_path":"relative"},"rules":[]}', '{"tool":"Nope","input":{}}');
  return lines;
}

/**
 * The answer `toolgate check` gives the line alone: a fresh engine deciding the parsed request (no batch machinery,
 * nothing shared with any other line), as one JSON line; a line that gets no decision, `{"error"}` with its id.
 */
async function alone(line: string): Promise<string> {
  let request: unknown;
  try {
    request = JSON.parse(line);
  } catch {
    return 'error';
  }
  const id = request !== null && typeof request === 'object' && 'id' in request ? { id: (request as { id: unknown }).id } : {};
  try {
    const { output } = await new CheckEngine(createCheckToolResolver(), { cwd: proj, home }).decide(request);
    return `${JSON.stringify({ ...id, ...output })}\n`;
  } catch {
    return 'error';
  }
}

/** An error answer as `error` (its wording is the batch's own), any other as written. */
const comparable = (answer: string): string => ((JSON.parse(answer) as { error?: string }).error !== undefined ? 'error' : answer);

describe('check --batch decides each line as it would be decided alone', () => {
  it('a varied corpus, in chunks of 1, 7 and 130 lines, gets the answers of its lines one by one', async () => {
    const lines = corpus();
    const expected: string[] = [];
    for (const line of lines) expected.push(await alone(line));
    const kinds = new Set(expected.map((a) => (a === 'error' ? a : (JSON.parse(a) as { behavior: string }).behavior)));
    // The corpus is varied: every kind of answer is among them.
    expect([...kinds].sort()).toEqual(['allow', 'ask', 'deny', 'error']);
    for (const size of [1, 7, 130]) {
      const answers = new BatchAnswers(new CheckEngine(createCheckToolResolver(), { cwd: proj, home }));
      const got: string[] = [];
      // Twice through: the second pass is answered from memory where the first remembered.
      for (const pass of [1, 2]) {
        for (let i = 0; i < lines.length; i += size) {
          const { text } = await answers.answerChunk(lines.slice(i, i + size));
          got.push(...text.slice(0, -1).split('\n').map((t) => comparable(`${t}\n`)));
        }
        expect({ size, pass, answers: got.splice(0) }).toEqual({ size, pass, answers: expected });
      }
    }
  }, 120_000);
  it('rules read once and shared: the same text under other sources, behaviours and roots, spellings that differ only in case, spaces or escapes, a rule set changed between lines, the disk changed between lines', async () => {
    const p = (...parts: string[]) => path.join(proj, ...parts);
    const texts = ['Read(./secrets/**)', 'Read(/secrets/**)', ' Read(./secrets/**) ', 'read(./secrets/**)', 'Read(./SECRETS/**)', 'Read(./secrets/\\*\\*)', 'Read(./se\\crets/**)', 'Bash(cat \\(x\\):*)', 'Bash(cat:*)', 'Bash(git :* push)'];
    const sources = ['userSettings', 'projectSettings', 'localSettings', 'policySettings', 'flagSettings', 'cliArg', 'session'];
    const behaviors = ['deny', 'ask', 'allow'];
    const calls = [
      { tool: 'Read', input: { file_path: p('secrets', 'key.pem') } },
      { tool: 'Read', input: { file_path: p('src', 'vault', 'key.pem') } },
      { tool: 'Read', input: { file_path: p('secrets', 'later.pem') } },
      { tool: 'Bash', input: { command: 'cat secrets/key.pem' } },
      { tool: 'Bash', input: { command: 'cat (x)' } },
      { tool: 'Edit', input: { file_path: p('secrets', 'key.pem'), old_string: 'k', new_string: 'j' } },
    ];
    // Between some lines the disk changes: a file appears, a link is retargeted (and back), a link appears.
    const changes: (() => void)[] = [
      () => fs.writeFileSync(p('secrets', 'later.pem'), 'k'),
      () => {
        fs.rmSync(p('src', 'vault'));
        fs.symlinkSync(p('src', 'deep'), p('src', 'vault'));
      },
      () => {
        fs.rmSync(p('src', 'vault'));
        fs.symlinkSync(p('secrets'), p('src', 'vault'));
      },
      () => fs.symlinkSync(p('secrets'), p('src', 'vault2')),
    ];
    const answers = new BatchAnswers(new CheckEngine(createCheckToolResolver(), { cwd: proj, home }));
    const kinds = new Set<string>();
    try {
      for (let i = 0; i < 240; i++) {
        if (i % 60 === 59) changes[Math.floor(i / 60)]!();
        const rules = [0, 1].map((k) => ({
          source: sources[(i + 3 * k) % sources.length]!,
          behavior: behaviors[(i + k) % behaviors.length]!,
          rule: texts[(i * 7 + 3 * k) % texts.length]!,
          ...((i + k) % 4 === 0 ? { root: k === 0 ? proj : home } : {}),
        }));
        const line = JSON.stringify({ id: i, ...calls[i % calls.length]!, cwd: proj, home, rules });
        const expected = await alone(line);
        const { text } = await answers.answerChunk([line]);
        expect({ i, answer: comparable(text) }).toEqual({ i, answer: expected });
        kinds.add(expected === 'error' ? expected : (JSON.parse(expected) as { behavior: string }).behavior);
      }
      expect([...kinds].sort()).toEqual(['allow', 'ask', 'deny', 'error']);
    } finally {
      fs.rmSync(p('secrets', 'later.pem'), { force: true });
      fs.rmSync(p('src', 'vault2'), { force: true });
    }
  }, 120_000);
});
