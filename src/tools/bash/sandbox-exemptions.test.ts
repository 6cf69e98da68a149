/** Which git commands make a repository or a `.git` (refused outside the sandbox while sandboxed commands run). */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBashParser } from '../../permissions/bash/index.js';
import { repositoryMaker } from './sandbox-exemptions.js';

beforeAll(async () => {
  await loadBashParser();
});

describe('repositoryMaker', () => {
  it('finds git that makes a repository or a submodule’s .git, also behind cd, -C, bash -c', () => {
    for (const command of [
      'git init',
      'git init -q vendor/new',
      'git -C vendor clone https://example.com/x.git',
      'cd vendor && git clone ../x',
      'git submodule update --init',
      'git submodule --quiet add ../lib lib',
      'git worktree add ../wt',
      'git checkout --recurse-submodules main',
      'git pull --recurse-submodules=yes',
      "bash -c 'git init x'",
      "git -c alias.x='!git init y' x",
      'git $SUB',
    ]) {
      expect(repositoryMaker(command), command).toBeDefined();
    }
  });

  it('leaves everyday git alone', () => {
    for (const command of ['git status', 'git commit -m "$MSG"', 'git add -A', 'git checkout -b feature', 'git checkout --recurse-submodules=no main', 'git submodule', 'git submodule status', 'git worktree list', 'git push', 'ls -la', 'make']) {
      expect(repositoryMaker(command), command).toBeUndefined();
    }
  });
});
