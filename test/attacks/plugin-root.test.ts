/**
 * `${CLAUDE_PLUGIN_ROOT}` in a plugin's shell commands (docs/security.md §9). The attacker names the folder: a
 * `--plugin-dir` (or the Agent SDK's `plugins` path) is wherever the plugin was unpacked, and its path may hold a
 * space, a quote, `$( )` or `;`. Pasted into a hook's command or a command file's `` !`…` `` line as text, that path
 * runs. With the defence, the hook keeps the variable for bash to expand (a path never read as syntax) and a `!` line
 * gets the path quoted for where it stands. Real runtimes, real bash; each case fails with the path pasted as text
 * (checked by reverting plugin-folder.ts `hooksWithPluginRoot` and command-render.ts's quoting).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../../src/agent/create-tool-runtime.js';
import { expandSlashCommand } from '../../src/agent/slash-commands.js';
import type { ToolRuntime } from '../../src/agent/types.js';
import { readPluginFolder, type PluginFolder } from '../../src/settings/plugin-folder.js';
import type { ToolUseBlock } from '../../src/tool/tool.js';

let root: string;
let project: string;
const closers: (() => Promise<unknown>)[] = [];
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-attack-plugin-root-')));
  project = path.join(root, 'repo');
  mkdirSync(project, { recursive: true });
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  rmSync(root, { recursive: true, force: true });
});

const write = (file: string, text: string) => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
};

/** Folder names that run `touch pwned-…` (in the project, the hook's cwd) when pasted unquoted, in "…" or in '…'. */
const HOSTILE = {
  unquoted: 'kit;touch pwned-unquoted;x',
  double: 'kit$(touch pwned-double)x',
  single: "kit';touch pwned-single;'x",
  space: 'kit with space',
} as const;
const COMMAND_FOR: Record<keyof typeof HOSTILE, string> = {
  unquoted: 'bash ${CLAUDE_PLUGIN_ROOT}/mark.sh unquoted',
  double: 'bash "${CLAUDE_PLUGIN_ROOT}/mark.sh" double',
  single: "bash '${CLAUDE_PLUGIN_ROOT}/mark.sh' single",
  space: 'bash $CLAUDE_PLUGIN_ROOT/mark.sh space',
};

/** A plugin in a folder named `folder` whose PreToolUse hook runs `command`; its mark.sh leaves `<root>/ran-<word>`. */
function plugin(name: string, folder: string, files: Record<string, string>): PluginFolder {
  const dir = path.join(root, 'plugins', folder);
  write(path.join(dir, '.claude-plugin', 'plugin.json'), JSON.stringify({ name }));
  write(path.join(dir, 'mark.sh'), `touch '${root}/ran-'"$1"\n`);
  for (const [file, text] of Object.entries(files)) write(path.join(dir, file), text);
  const read = readPluginFolder(dir);
  expect(read.errors).toEqual([]);
  return read.plugin!;
}

async function runtimeWith(plugins: PluginFolder[]): Promise<ToolRuntime> {
  const runtime = await createToolRuntime({ cwd: project, sessionDir: path.join(root, 'session'), mode: 'bypassPermissions', settings: { homeDir: path.join(root, 'home'), sources: [], plugins } });
  closers.push(() => runtime.dispose());
  return runtime;
}

const pwned = () => readdirSync(project).filter((f) => f.startsWith('pwned'));

describe('${CLAUDE_PLUGIN_ROOT} is one word, never code', { timeout: 60_000 }, () => {
  it('hooks of plugins in folders named with ;, $( ), a quote and a space: each hook runs its script, nothing else runs', async () => {
    const plugins = (Object.keys(HOSTILE) as (keyof typeof HOSTILE)[]).map((kind) =>
      plugin(`kit-${kind}`, HOSTILE[kind], { 'hooks/hooks.json': JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: COMMAND_FOR[kind] }] }] } }) }),
    );
    const runtime = await runtimeWith(plugins);
    await runtime.run([{ type: 'tool_use', id: 'toolu_root_1', name: 'Bash', input: { command: 'true', description: 'nothing' } } as ToolUseBlock]);
    expect(pwned()).toEqual([]);
    for (const kind of Object.keys(HOSTILE)) expect(existsSync(path.join(root, `ran-${kind}`)), kind).toBe(true);
  });

  it("a plugin command's !`…` line reads the file under the folder's hostile path; nothing else runs", async () => {
    const show = ['Unquoted: !`cat ${CLAUDE_PLUGIN_ROOT}/data.txt`', '', 'Double: !`cat "${CLAUDE_PLUGIN_ROOT}/data.txt"`', '', "Single: !`cat '${CLAUDE_PLUGIN_ROOT}/data.txt'`", ''].join('\n');
    const plugins = (['unquoted', 'double', 'single'] as const).map((kind) => plugin(`kit-${kind}`, HOSTILE[kind], { 'commands/show.md': show, 'data.txt': `the-data-${kind}` }));
    const runtime = await runtimeWith(plugins);
    for (const kind of ['unquoted', 'double', 'single'] as const) {
      const expansion = await expandSlashCommand(runtime, `/kit-${kind}:show`);
      const text = JSON.stringify(expansion?.message.content);
      expect(text.match(new RegExp(`the-data-${kind}`, 'g')), text).toHaveLength(3);
    }
    expect(pwned()).toEqual([]);
  });
});
