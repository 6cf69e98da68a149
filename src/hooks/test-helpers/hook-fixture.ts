/** Temp dirs, real hook scripts and a runner built from settings JSON, for the hooks tests. */
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import type { AnyTool } from '../../tool/tool.js';
import { createHookRunner } from '../hook-runner.js';
import { parseHooksSettings } from '../parse-hooks-settings.js';
import type { HookCallback, HookRunner, HookToolEvent } from '../types.js';

export interface HookFixture {
  dir: string;
  sessionDir: string;
  /** Writes an executable bash script; returns its absolute path. */
  script(name: string, body: string): Promise<string>;
  event(overrides?: Partial<HookToolEvent>): HookToolEvent;
  /** A runner from the `hooks` value of one (project) settings file, or several `{ source, hooks }`. */
  runner(hooks: unknown, extra?: { callbacks?: HookCallback[]; more?: { source: string; hooks: unknown }[]; env?: NodeJS.ProcessEnv }): HookRunner;
  read(name: string): Promise<string>;
  cleanup(): Promise<void>;
}

/** A shell tool as the engine knows one: by its traits (the events' default tool). */
export const shellTool: AnyTool = buildTool({
  name: 'Bash',
  inputSchema: z.object({ command: z.string() }),
  permissionTraits: { kind: 'shell', commandField: 'command' },
  maxResultSizeChars: 10_000,
  prompt: async () => 'Runs a command.',
  call: async () => ({ data: '' }),
});

export async function makeHookFixture(): Promise<HookFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-hooks-'));
  const sessionDir = join(dir, 'session');
  const projectDir = join(dir, 'project');
  await mkdir(projectDir);
  return {
    dir,
    sessionDir,
    async script(name, body) {
      const file = join(dir, name);
      await writeFile(file, `#!/usr/bin/env bash\n${body}\n`);
      await chmod(file, 0o755);
      return file;
    },
    event(overrides = {}) {
      return {
        sessionId: 'sess-1',
        transcriptPath: join(dir, 'transcript.jsonl'),
        cwd: projectDir,
        permissionMode: 'default',
        toolName: 'Bash',
        toolInput: { command: 'ls -la' },
        toolUseId: 'toolu_01',
        projectDir,
        // Another tool named by the test comes without a tool object (matched by name only) unless it gives one.
        ...(overrides.toolName === undefined || overrides.toolName === 'Bash' ? { tool: shellTool } : {}),
        ...overrides,
      };
    },
    runner(hooks, extra = {}) {
      const parsed = parseHooksSettings([
        { source: 'projectSettings', file: join(projectDir, '.claude/settings.json'), hooks },
        ...(extra.more ?? []),
      ]);
      if (parsed.errors.length > 0) throw new Error(`fixture settings invalid:\n${parsed.errors.join('\n')}`);
      return createHookRunner({ config: parsed.config, callbacks: extra.callbacks, sessionDir, env: extra.env });
    },
    read(name) {
      return readFile(join(dir, name), 'utf8');
    },
    cleanup() {
      return rm(dir, { recursive: true, force: true });
    },
  };
}

/** `{ PreToolUse: [{ matcher, hooks: [{ type: 'command', command }...] }] }` in one line. */
export function hooksFor(event: string, matcher: string | undefined, ...handlers: Record<string, unknown>[]): Record<string, unknown> {
  return { [event]: [{ ...(matcher === undefined ? {} : { matcher }), hooks: handlers.map((h) => ({ type: 'command', ...h })) }] };
}
