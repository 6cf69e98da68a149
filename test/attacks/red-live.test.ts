/**
 * Red team of docs/security.md §12 (settings changed while a session runs): the Agent SDK `Query` methods on a real
 * session against the scripted model server, real files and real bash.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { Options, Query, SDKMessage } from 'toolgate/agent-sdk';
import type { ScriptedResponse } from '../../src/testing/index.js';
import { call, harness, inputStream, text, toolResults, type Harness } from '../helpers/agent-sdk-session.js';

let h: Harness | undefined;
let script: ScriptedResponse[] = [];
const scripted = () => harness(Array.from({ length: 30 }, () => () => script.shift() ?? text('(no answer left)')));
afterEach(async () => {
  await h?.close();
  h = undefined;
  script = [];
});

/** A streaming session: `before` acts on it, then the prompt is sent and every message collected. */
async function session(prompt: string, options: Options, before: (q: Query) => Promise<void>): Promise<SDKMessage[]> {
  const input = inputStream();
  const q = h!.start(input.stream, options);
  const messages: SDKMessage[] = [];
  const drained = (async () => {
    for await (const m of q) {
      messages.push(m);
      if (m.type === 'result') input.end();
    }
  })();
  await before(q);
  input.send(prompt);
  await drained;
  return messages;
}

const bash = (script: string, cwd: string) => execFileSync('bash', ['-c', script], { cwd, encoding: 'utf8' });

describe('seedReadState: a file replaced since the observed Read is not seeded (security.md §12, red team)', () => {
  // The program saw the model read version "mine" (mtime T). Later something puts another version there and sets its
  // mtime back (`cp -p`/`rsync -a`/`tar x` of a copy, or the model's own `touch -r`): the mtime check alone saw
  // "not past T" and seeded it, so a Write replaced content nobody had read. The inode's ctime cannot be set back.
  for (const how of [
    { name: 'the same mtime (touch -r)', restamp: 'touch -m -r ../seen.ref a.txt' },
    { name: 'an older mtime (cp -p of an older copy)', restamp: 'touch -m -d @1000000000 ../old.txt && cp -p ../old.txt a.txt' },
  ]) {
    it(`a file rewritten and given ${how.name} is not seeded: the Write asks for a Read and the other version stays`, async () => {
      h = await scripted();
      const work = path.join(h.dir, 'w');
      const file = path.join(work, 'a.txt');
      bash(`mkdir w && printf 'mine\\n' > w/a.txt && cp -p w/a.txt seen.ref && printf 'theirs\\n' > old.txt`, h.dir);
      const seen = Math.floor(statSync(file).mtimeMs);
      // Past the seed's allowance for a file renamed into place just after its write (an atomic writer).
      await sleep(1_500);
      bash(`printf 'theirs\\n' > a.txt && ${how.restamp}`, work);
      expect(Math.floor(statSync(file).mtimeMs)).toBeLessThanOrEqual(seen);
      script.push(call('Write', { file_path: file, content: 'model\n' }), text('done'));
      const messages = await session('write', { permissionMode: 'acceptEdits', cwd: work }, (q) => q.seedReadState(file, seen));
      expect(toolResults(messages)[0]).toMatch(/has not been read yet/);
      expect(readFileSync(file, 'utf8')).toBe('theirs\n');
    });
  }

  // The same through a link: the file is replaced by a link to another file of the project, untouched for long (its
  // own times are old). The Write went through the link and replaced that file, which nobody had read.
  it('a file replaced by a link to an old, unread file is not seeded: the Write asks for a Read, that file stays', async () => {
    h = await scripted();
    bash(`printf 'other\\n' > old.txt && printf 'mine\\n' > notes.txt`, h.dir);
    const file = path.join(h.dir, 'notes.txt');
    const seen = Math.floor(statSync(file).mtimeMs);
    await sleep(1_500);
    bash('ln -sf old.txt notes.txt', h.dir);
    script.push(call('Write', { file_path: file, content: 'model\n' }), text('done'));
    const messages = await session('write', { permissionMode: 'acceptEdits' }, (q) => q.seedReadState(file, seen));
    expect(toolResults(messages)[0]).toMatch(/has not been read yet/);
    expect(readFileSync(path.join(h.dir, 'old.txt'), 'utf8')).toBe('other\n');
  });

  it('held: the version that was read, untouched since, is seeded (the Write goes through)', async () => {
    h = await scripted();
    const file = path.join(h.dir, 'a.txt');
    writeFileSync(file, 'mine\n');
    const seen = Math.floor(statSync(file).mtimeMs);
    await sleep(1_500);
    script.push(call('Write', { file_path: file, content: 'model\n' }), text('done'));
    const messages = await session('write', { permissionMode: 'acceptEdits' }, (q) => q.seedReadState(file, seen));
    expect(toolResults(messages)[0]).not.toMatch(/not been read/);
    expect(readFileSync(file, 'utf8')).toBe('model\n');
  });
});

describe("updateSettings and saved grants do not copy or write through a repository's links (security.md §12, red team)", () => {
  // A cloned repository commits `.claude/settings.local.json` as a link to a JSON file of the person's (a token store)
  // or `.claude` as a link to a folder outside. The writer read through the link and renamed its copy over it: the
  // token landed in the project, where the model reads without asking; through a linked `.claude` it wrote outside.
  const secret = '{ "auths": { "registry.example": { "auth": "SECRET-TOKEN-1234" } } }\n';

  it('updateSettings(localSettings) refuses a linked settings.local.json: the secret is not copied into the project', async () => {
    h = await scripted();
    bash(`mkdir -p outside .claude && printf '%s' '${secret}' > outside/config.json && ln -s ../outside/config.json .claude/settings.local.json`, h.home);
    const project = h.home;
    script.push(text('ok'));
    await session('hi', { cwd: project, settingSources: ['local'] }, async (q) => {
      await expect(q.updateSettings('localSettings', { outputStyle: 'Explanatory' })).rejects.toThrow(/link/);
    });
    expect(bash('find .claude -type f -exec cat {} +', project)).not.toContain('SECRET-TOKEN');
    expect(readFileSync(path.join(project, 'outside', 'config.json'), 'utf8')).toBe(secret);
  });

  it('updateSettings(localSettings) refuses a linked .claude folder: nothing is written outside the project', async () => {
    h = await scripted();
    bash('mkdir -p project elsewhere && ln -s ../elsewhere project/.claude', h.home);
    script.push(text('ok'));
    await session('hi', { cwd: path.join(h.home, 'project'), settingSources: ['local'] }, async (q) => {
      await expect(q.updateSettings('localSettings', { outputStyle: 'Explanatory' })).rejects.toThrow(/link/);
    });
    expect(bash('ls -A elsewhere', h.home)).toBe('');
  });

  it("`toolgate mcp add --scope project` refuses a linked .mcp.json: the secret is not copied into the (committed) file", async () => {
    h = await scripted();
    bash(`mkdir -p outside && printf '%s' '${secret}' > outside/config.json && ln -s outside/config.json .mcp.json`, h.home);
    const { addMcpServer } = await import('../../src/mcp/edit-config.js');
    expect(() => addMcpServer('docs', { type: 'http', url: 'https://mcp.example.com/mcp' }, 'project', { projectDir: h!.home, homeDir: h!.dir })).toThrow(/link/);
    expect(bash('cat .mcp.json', h.home)).toBe(secret);
    expect(bash('test -L .mcp.json && echo link', h.home)).toBe('link\n');
  });

  it('a grant saved to local settings refuses a linked settings.local.json the same way', async () => {
    h = await scripted();
    bash(`mkdir -p outside .claude && printf '%s' '${secret}' > outside/config.json && ln -s ../outside/config.json .claude/settings.local.json`, h.home);
    const { writeGrants } = await import('../../src/settings/grants.js');
    expect(() => writeGrants({ destination: 'localSettings', projectDir: h!.home, homeDir: h!.dir, rules: ['Bash(npm test)'] })).toThrow(/link/);
    expect(bash('find .claude -type f -exec cat {} +', h.home)).not.toContain('SECRET-TOKEN');
  });
});

describe("reloadSkills: a repository's skill or command is read from inside the project only (security.md §12, red team)", () => {
  // A cloned repository links `.claude/skills/notes/SKILL.md` (or the skill's folder, or a command file) to a file of
  // the person's outside the project. The program reloads the skills; the model invokes the skill and the file's
  // text comes into the conversation — a read outside the working directories that no permission check saw.
  const secret = '---\ndescription: Team notes\n---\naws_secret_access_key = SECRETKEY-0042\n';
  const plant: Record<string, string> = {
    'SKILL.md linked out': 'mkdir -p .claude/skills/notes && ln -s "$OUT/creds.md" .claude/skills/notes/SKILL.md',
    'the skill folder linked out': 'mkdir -p .claude/skills "$OUT/skill" && cp "$OUT/creds.md" "$OUT/skill/SKILL.md" && ln -s "$OUT/skill" .claude/skills/notes',
    'a command file linked out': 'mkdir -p .claude/commands && ln -s "$OUT/creds.md" .claude/commands/notes.md',
  };
  for (const [how, script] of Object.entries(plant)) {
    it(`${how}: not offered after the reload, and the model's Skill call never carries the file`, async () => {
      h = await scripted();
      const out = path.join(h.home, 'outside');
      bash(`mkdir -p outside && printf '%s' '${secret}' > outside/creds.md`, h.home);
      scriptPush(call('Skill', { skill: 'notes' }), text('done'));
      let offered: string[] = [];
      const messages = await session('notes', { settingSources: ['project'] }, async (q) => {
        execFileSync('bash', ['-c', script], { cwd: h!.dir, env: { ...process.env, OUT: out } });
        offered = (await q.reloadSkills()).skills.map((s) => s.name);
      });
      expect(JSON.stringify(h.server.messageRequests.map((r) => r.body))).not.toContain('SECRETKEY-0042');
      expect(JSON.stringify(messages)).not.toContain('SECRETKEY-0042');
      expect(offered).not.toContain('notes');
    });
  }

  it('held: a skill linked to a file inside the project is offered and read', async () => {
    h = await scripted();
    bash(`mkdir -p shared .claude/skills/notes && printf '%s' '---\ndescription: Team notes\n---\nINSIDE-NOTE-7\n' > shared/notes.md && ln -s ../../../shared/notes.md .claude/skills/notes/SKILL.md`, h.dir);
    scriptPush(call('Skill', { skill: 'notes' }), text('done'));
    await session('notes', { settingSources: ['project'] }, async (q) => {
      expect((await q.reloadSkills()).skills.map((s) => s.name)).toContain('notes');
    });
    expect(JSON.stringify(h.server.messageRequests.map((r) => r.body))).toContain('INSIDE-NOTE-7');
  });
});

function scriptPush(...answers: ScriptedResponse[]): void {
  script.push(...answers);
}
