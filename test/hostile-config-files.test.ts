/**
 * The class: a configuration file a repository or home folder supplies is hostile input. Every reader of one
 * (settings, `.mcp.json`, `~/.claude.json`, the grant writer) refuses what is not a regular file, what is too large,
 * what is not UTF-8 and what nests too deep — with an error naming the file (and the key), never a hang, a 2 GB read,
 * a silently changed rule or a stack overflow.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildRedactor } from '../src/execution/redaction.js';
import { loadMcpConfig } from '../src/mcp/load-config.js';
import { loadAgentDefinitions } from '../src/tools/agent/agent-definitions.js';
import { editSettingsFile } from '../src/settings/grants.js';
import { loadSettings } from '../src/settings/load-settings.js';
import { MAX_CONFIG_FILE_BYTES, MAX_JSON_DEPTH, readConfigText, tooDeepAt } from '../src/tool/read-config-file.js';

let tmp: string;
let proj: string;
let home: string;
beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-config-')));
  proj = path.join(tmp, 'proj');
  home = path.join(tmp, 'home');
  fs.mkdirSync(path.join(proj, '.claude'), { recursive: true });
  fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const projectSettings = () => path.join(proj, '.claude', 'settings.json');
const load = () => loadSettings({ cwd: proj, homeDir: home, managedSettingsPath: path.join(tmp, 'managed.json') });

/** Each hostile shape of a file, made at `file`. */
const HOSTILE: Record<string, (file: string) => RegExp> = {
  'a symlink to /dev/zero': (file) => {
    fs.symlinkSync('/dev/zero', file);
    return /not a regular file \(a character device\)/;
  },
  'a FIFO (no writer: reading would wait forever)': (file) => {
    execFileSync('mkfifo', [file]);
    return /not a regular file \(a FIFO\)/;
  },
  'a symlink to a FIFO': (file) => {
    const fifo = `${file}.fifo`;
    execFileSync('mkfifo', [fifo]);
    fs.symlinkSync(fifo, file);
    return /not a regular file \(a FIFO\)/;
  },
  'a directory': (file) => {
    fs.mkdirSync(file);
    return /not a regular file \(a directory\)/;
  },
  'a regular file over the size cap (sparse)': (file) => {
    fs.writeFileSync(file, '{}');
    fs.truncateSync(file, MAX_CONFIG_FILE_BYTES + 1);
    return /over the limit/;
  },
  'invalid UTF-8 inside a deny rule': (file) => {
    fs.writeFileSync(file, Buffer.concat([Buffer.from('{\n  "permissions": {\n    "deny": ["Read(./sec'), Buffer.from([0xff]), Buffer.from('ret.txt)"]\n  }\n}\n')]));
    return /not valid UTF-8 \(line 3, byte \d+\)/;
  },
  'an overlong UTF-8 encoding of "/"': (file) => {
    fs.writeFileSync(file, Buffer.concat([Buffer.from('{"permissions": {"deny": ["Read(.'), Buffer.from([0xc0, 0xaf]), Buffer.from('secret.txt)"]}}')]));
    return /not valid UTF-8 \(line 1,/;
  },
};

describe('settings files', () => {
  for (const [name, make] of Object.entries(HOSTILE)) {
    it(`${name}: an error naming the file, nothing read from it`, () => {
      const expected = make(projectSettings());
      const loaded = load();
      expect(loaded.errors).toHaveLength(1);
      expect(loaded.errors[0]!.file).toBe(projectSettings());
      expect(loaded.errors[0]!.message).toMatch(expected);
      expect(loaded.permissionContext.alwaysDenyRules).toEqual([]);
    });
  }

  it('a symlink to a regular file is followed and read', () => {
    const real = path.join(tmp, 'shared-settings.json');
    fs.writeFileSync(real, JSON.stringify({ permissions: { deny: ['Read(./secret.txt)'] } }));
    fs.symlinkSync(real, projectSettings());
    const loaded = load();
    expect(loaded.errors).toEqual([]);
    expect(loaded.permissionContext.alwaysDenyRules.map((r) => r.ruleValue.ruleContent)).toEqual(['./secret.txt']);
  });

  it('valid UTF-8 (multi-byte, a BOM) is read exactly', () => {
    fs.writeFileSync(projectSettings(), `\uFEFF${JSON.stringify({ permissions: { deny: ['Read(./geheimnis-ä€😀.txt)'] } })}`);
    const loaded = load();
    expect(loaded.errors).toEqual([]);
    expect(loaded.permissionContext.alwaysDenyRules[0]!.ruleValue.ruleContent).toBe('./geheimnis-ä€😀.txt');
  });

  // Deep enough to overflow the stack of a recursive consumer (merge, freeze, clone), under each key that carries
  // free-form JSON.
  for (const key of ['hooks', 'toolgate', 'sandbox', 'env', 'permissions']) {
    it(`nesting too deep under "${key}": an error naming the file and the key`, () => {
      const deep = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
      fs.writeFileSync(projectSettings(), `{"${key}": {"x": [${deep}]}}`);
      const loaded = load();
      expect(loaded.errors).toHaveLength(1);
      expect(loaded.errors[0]!.file).toBe(projectSettings());
      expect(loaded.errors[0]!.key).toMatch(new RegExp(`^${key}\\.x\\[0\\](\\.a)+$`));
      expect(loaded.errors[0]!.message).toContain(`nesting deeper than ${MAX_JSON_DEPTH} levels at ${key}.x[0].a`);
    });
  }

  it('--settings inline JSON gets the same depth check', () => {
    const deep = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
    const loaded = loadSettings({ cwd: proj, homeDir: home, managedSettingsPath: path.join(tmp, 'managed.json'), flagSettingsFiles: [`{"toolgate": ${deep}}`] });
    expect(loaded.errors.map((e) => [e.file, e.key])).toEqual([['--settings (inline JSON)', `toolgate${'[0]'.repeat(MAX_JSON_DEPTH - 1)}`]]);
  });

  it('the grant writer refuses a hostile settings file instead of hanging or reading /dev/zero', () => {
    for (const [name, make] of Object.entries(HOSTILE)) {
      const file = path.join(tmp, `grant-${name.replace(/\W+/g, '-')}.json`);
      const expected = make(file);
      expect(() => editSettingsFile(file, () => true), name).toThrow(expected);
    }
  });
});

describe('MCP configuration files', () => {
  for (const [name, make] of Object.entries(HOSTILE)) {
    it(`.mcp.json and ~/.claude.json as ${name}: a problem naming the file, no servers from it`, () => {
      const mcpJson = path.join(proj, '.mcp.json');
      const claudeJson = path.join(home, '.claude.json');
      const expected = make(mcpJson);
      make(claudeJson);
      const loaded = loadMcpConfig({ cwd: proj, homeDir: home, sources: ['project', 'user', 'local'] });
      expect(loaded.servers.size).toBe(0);
      for (const file of [mcpJson, claudeJson]) {
        expect(loaded.problems.find((p) => p.file === file)?.message, file).toMatch(expected);
      }
    });
  }

  it('too deep: a problem naming the file and key path', () => {
    fs.writeFileSync(path.join(proj, '.mcp.json'), `{"mcpServers": {"s": {"command": "x", "env": ${'['.repeat(5_000)}${']'.repeat(5_000)}}}}`);
    const loaded = loadMcpConfig({ cwd: proj, homeDir: home, sources: ['project'] });
    expect(loaded.problems.map((p) => p.message)).toContainEqual(expect.stringContaining('nesting deeper than 100 levels at mcpServers.s.env[0]'));
    expect(loaded.servers.size).toBe(0);
  });
});

describe('other files a repository supplies', () => {
  it('agent definitions (.claude/agents/*.md): a FIFO or /dev/zero is an error naming the file; the others still load', () => {
    const agents = path.join(proj, '.claude', 'agents');
    fs.mkdirSync(agents);
    execFileSync('mkfifo', [path.join(agents, 'fifo.md')]);
    fs.symlinkSync('/dev/zero', path.join(agents, 'zero.md'));
    fs.writeFileSync(path.join(agents, 'fine.md'), '---\nname: fine\ndescription: a fine agent\n---\nYou are fine.\n');
    const loaded = loadAgentDefinitions(proj, home);
    expect(loaded.agents.map((a) => a.agentType)).toContain('fine');
    expect(loaded.errors).toEqual([
      `${path.join(agents, 'fifo.md')}: it is not a regular file (a FIFO); only a regular file (or a symlink to one) is read`,
      `${path.join(agents, 'zero.md')}: it is not a regular file (a character device); only a regular file (or a symlink to one) is read`,
    ]);
  });

  it('redaction.secretFiles naming a FIFO or /dev/zero is skipped, not waited on; a regular one still counts', () => {
    const fifo = path.join(tmp, 'secrets.fifo');
    execFileSync('mkfifo', [fifo]);
    fs.writeFileSync(path.join(tmp, '.env'), 'API=value-to-hide-4711\n');
    const r = buildRedactor({ secretFiles: [fifo, '/dev/zero', path.join(tmp, '.env')] }, {});
    expect(r.redactText('x value-to-hide-4711 y')).toBe(`x [REDACTED:file:${path.join(tmp, '.env')}] y`);
  });
});

describe('readConfigText / tooDeepAt', () => {
  it('missing is not an error; a dangling symlink is missing', () => {
    expect(readConfigText(path.join(tmp, 'none.json')).kind).toBe('missing');
    fs.symlinkSync(path.join(tmp, 'gone'), path.join(tmp, 'dangling.json'));
    expect(readConfigText(path.join(tmp, 'dangling.json')).kind).toBe('missing');
  });

  it('names keys that are not identifiers in brackets, and finds nothing in shallow values', () => {
    expect(tooDeepAt({ 'a b': [{ c: 1 }] }, 2)).toBe('["a b"][0]');
    expect(tooDeepAt({ a: [1, 2, { b: 'x' }] }, 3)).toBeUndefined();
  });
});
