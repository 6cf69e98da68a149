/**
 * Caches that take a file as unchanged while its stat data is (git's "racily clean" rule, src/tool/racy-clean.ts):
 * the engine's memo of what a repository's `.git/config` names (permissions/bash/git-repo.ts). The attacker is a
 * concurrent process of the user's (a background job the model started) rewriting the config while a check reads it:
 * where the kernel stamps files with a coarse clock, a rewrite within the tick of the reading keeps every field of
 * the stamp — size, inode, modification and change time — and a memo keyed on it would go on answering "no program"
 * for a config that now names a pager. A config whose stamp is that recent must be read again at the next check.
 * This machine's kernel may stamp finely, so the case makes the stamp recent for the whole test (a modification time
 * in the future, which `touch -d` sets as easily as one in the past) and looks at what the next check reads.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckEngine } from '../../src/cli/commands/check-request.js';
import { createCheckToolResolver } from '../../src/cli/commands/check-tools.js';
import { observeFacts } from '../../src/permissions/observed-fs.js';

let tmp: string;
beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-racy-attack-')));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("a repository's config changed at its reading is read again", () => {
  it('a .git/config whose stamp is within the racy margin: the next check reads it again', async () => {
    const proj = path.join(tmp, 'proj');
    fs.mkdirSync(proj);
    execFileSync('git', ['init', '-q', proj], { env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
    const config = path.join(proj, '.git', 'config');
    const future = new Date(Date.now() + 3_600_000);
    fs.utimesSync(config, future, future);
    const engine = new CheckEngine(createCheckToolResolver(), { cwd: proj, home: path.join(tmp, 'home') });
    const reads = async () => {
      const { result, observations } = await observeFacts(() => engine.decide({ tool: 'Bash', input: { command: 'git log' }, rules: [] }));
      expect(result.output.behavior).toBe('allow');
      return observations!.paths.filter((p, i) => p === config && observations!.facts[i]!.includes('[core]')).length;
    };
    expect(await reads()).toBe(1);
    // Without the rule, the memo answers from the first reading: the file is not read, whatever it now says.
    expect(await reads()).toBe(1);
    const old = new Date(Date.now() - 3_600_000);
    fs.utimesSync(config, old, old);
    await new Promise((resolve) => setTimeout(resolve, 30));
    // Settled (its change time too, once 20 ms have passed): remembered by its stamp from here on.
    expect(await reads()).toBe(1);
    expect(await reads()).toBe(0);
  });
});
