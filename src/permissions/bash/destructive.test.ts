/**
 * The Bash tool's `isDestructive`, from the engine's reading of the command: what may do what cannot be undone is
 * destructive through wrappers and `bash -c` too, and everyday commands are not.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { destructiveSubcommand } from './destructive.js';
import { loadBashParser } from './parser.js';

beforeAll(() => loadBashParser());

describe('destructive shell commands', () => {
  const destructive = [
    'rm -r build',
    'rm -rf /tmp/x',
    'rm --recursive dir',
    'sudo rm -R dir',
    "bash -c 'rm -rf dist'",
    'cd sub && rm -fr out',
    'find . -name "*.o" -delete',
    'git reset --hard HEAD~1',
    'git -C repo reset --hard',
    'git clean -fdx',
    'git push --force origin main',
    'git push -f',
    'git push origin +main',
    'git push origin --delete old',
    'git branch -D feature',
    'git stash drop',
    'git checkout -- .',
    'git restore src/a.ts',
    'dd if=/dev/zero of=disk.img bs=1M count=1',
    'mkfs.ext4 /dev/sdb1',
    'shred -u secret.txt',
    'timeout 5 git clean -f',
  ];
  for (const command of destructive) it(`destructive: ${command}`, () => expect(destructiveSubcommand(command)).toBeDefined());

  const benign = [
    'rm a.txt',
    'rm -f a.txt',
    'ls -la',
    'git status',
    'git reset HEAD a.txt',
    'git clean -n',
    'git push origin main',
    'git branch -d merged',
    'git checkout main',
    'git restore --staged a.ts',
    'git stash list',
    'find . -name "*.o"',
    'dd if=disk.img bs=1M count=1',
    'echo rm -rf /',
    'npm test',
  ];
  for (const command of benign) it(`not destructive: ${command}`, () => expect(destructiveSubcommand(command)).toBeUndefined());

});
