/**
 * docs/security.md, "sed preview (`_simulatedSedEdit`)": a `sed -i` the engine can simulate is shown at the prompt as
 * the edit it makes, and what the person approved is exactly what is written — or nothing. The attacker is the
 * model's calls after an injection (and whatever they started that still runs): it may change the file between the
 * preview and the write, swap it for a link, or write a sed script that does more than substitute. Each case runs the
 * real runtime (createToolRuntime: the engine, the executor, the Bash tool, GNU sed, real files); the person is a
 * handler that sees the request (and may let the attacker act while it looks) before answering.
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../../src/agent/create-tool-runtime.js';
import type { RuntimePermissionRequest, ToolRuntime } from '../../src/agent/types.js';
import type { PermissionMode } from '../../src/tool/permission-types.js';
import type { ToolResultBlockParam, ToolUseBlock } from '../../src/tool/tool.js';

let root: string;
let proj: string;
let outside: string;
const runtimes: ToolRuntime[] = [];

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-attack-sed-')));
  proj = path.join(root, 'proj');
  outside = path.join(root, 'outside');
  mkdirSync(proj);
  mkdirSync(outside);
  writeFileSync(path.join(proj, 'a.txt'), 'alpha\nbeta\n');
  writeFileSync(path.join(outside, 'secret.txt'), 'alpha secret\n');
});
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()));
  rmSync(root, { recursive: true, force: true });
});

type Person = (request: RuntimePermissionRequest) => Promise<'allow' | 'deny'> | 'allow' | 'deny';

async function session(mode: PermissionMode, person: Person = () => 'deny') {
  const asked: RuntimePermissionRequest[] = [];
  const rt = await createToolRuntime({
    cwd: proj,
    sessionDir: path.join(root, `.session-${runtimes.length}`),
    settings: { sources: [] },
    mode,
    onPermissionRequest: async (r) => {
      asked.push(r);
      return (await person(r)) === 'allow' ? { behavior: 'allow' } : { behavior: 'deny', message: 'not approved' };
    },
  });
  runtimes.push(rt);
  return { rt, asked };
}

let ids = 0;
const text = (r: ToolResultBlockParam): string =>
  typeof r.content === 'string' ? r.content : (r.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');

async function bash(rt: ToolRuntime, input: Record<string, unknown>): Promise<string> {
  const block = { type: 'tool_use', id: `toolu_sed_${++ids}`, name: 'Bash', input } as ToolUseBlock;
  const { results } = await rt.run([block]);
  return text(results[0]!);
}

const file = () => path.join(proj, 'a.txt');
const read = (p: string) => readFileSync(p, 'utf8');

describe('the prompt shows the edit, and the approval is bound to it', () => {
  it('shows the diff sed would make, and writes exactly that', async () => {
    const { rt, asked } = await session('default', () => 'allow');
    await bash(rt, { command: "sed -i 's/alpha/ALPHA/' a.txt" });
    expect(asked).toHaveLength(1);
    const preview = asked[0]!.preview;
    expect(preview?.summary).toBe('sed edits a.txt');
    expect(preview?.hunks?.flatMap((h) => h.lines)).toEqual(['-alpha', '+ALPHA', ' beta']);
    expect(read(file())).toBe('ALPHA\nbeta\n');
  });

  it('the file changed after the preview: nothing is written, the model is told to run it again', async () => {
    const changed = 'alpha\nalpha again, not previewed\n';
    const { rt } = await session('default', () => {
      writeFileSync(file(), changed); // the attacker's process, while the person reads the diff
      return 'allow';
    });
    const out = await bash(rt, { command: "sed -i 's/alpha/ALPHA/' a.txt" });
    expect(out).toContain('was not changed');
    expect(out).toContain('Run the command again');
    expect(read(file())).toBe(changed);
  });

  it('the file swapped for a link to a file outside after the preview: nothing read there, nothing written', async () => {
    const { rt } = await session('default', () => {
      unlinkSync(file());
      symlinkSync(path.join(outside, 'secret.txt'), file());
      return 'allow';
    });
    const out = await bash(rt, { command: "sed -i 's/alpha/ALPHA/' a.txt" });
    expect(out).toContain('was not changed');
    expect(lstatSync(file()).isSymbolicLink()).toBe(true);
    expect(read(path.join(outside, 'secret.txt'))).toBe('alpha secret\n');
  });

  it('the model cannot hand in a simulated edit of its own (`_simulatedSedEdit` is dropped before the schema)', async () => {
    const { rt } = await session('default', () => 'allow');
    const forged = { kind: 'sed-edit', command: 'true', filePath: path.join(outside, 'secret.txt'), updated: 'pwned\n' };
    await bash(rt, { command: 'true', _simulatedSedEdit: forged, approvedPreview: { data: forged } });
    expect(read(path.join(outside, 'secret.txt'))).toBe('alpha secret\n');
  });
});

describe('acceptEdits: only a simulable in-project sed -i is an edit', () => {
  it('a plain substitution in the project is accepted without a prompt, and written', async () => {
    const { rt, asked } = await session('acceptEdits');
    const out = await bash(rt, { command: "sed -i -E 's/(alp)ha/\\1HA/g' a.txt" });
    expect(asked).toEqual([]);
    expect(out).not.toContain('denied');
    expect(read(file())).toBe('alpHA\nbeta\n');
  });

  const notEdits: [string, () => void][] = [
    // GNU's e flag runs the pattern space as a command
    ["sed -i 's/.*/touch pwned-e/e' a.txt", () => expect(existsSync(path.join(proj, 'pwned-e'))).toBe(false)],
    // GNU's w flag writes another file, here outside the project
    ["sed -i 's/alpha/x/w OUT/w.txt' a.txt", () => expect(existsSync(path.join(outside, 'w.txt'))).toBe(false)],
    // the e command
    ["sed -i '1e touch pwned-cmd' a.txt", () => expect(existsSync(path.join(proj, 'pwned-cmd'))).toBe(false)],
    // two files, one outside the project
    ["sed -i 's/alpha/x/' a.txt OUT/secret.txt", () => expect(read(path.join(outside, 'secret.txt'))).toBe('alpha secret\n')],
  ];
  for (const [command, unharmed] of notEdits) {
    it(`asks (and is refused): ${command}`, async () => {
      const { rt, asked } = await session('acceptEdits');
      await bash(rt, { command: command.replace('OUT', outside) });
      expect(asked).toHaveLength(1);
      expect(asked[0]!.preview).toBeUndefined();
      unharmed();
      expect(read(file())).toBe('alpha\nbeta\n');
    });
  }

  it('a link in the project to a file outside is not an edit in the project', async () => {
    symlinkSync(path.join(outside, 'secret.txt'), path.join(proj, 'link.txt'));
    const { rt, asked } = await session('acceptEdits');
    await bash(rt, { command: "sed -i 's/alpha/x/' link.txt" });
    expect(asked).toHaveLength(1);
    expect(read(path.join(outside, 'secret.txt'))).toBe('alpha secret\n');
  });
});
