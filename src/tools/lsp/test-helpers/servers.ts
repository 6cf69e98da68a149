/**
 * Real language servers for the LSP tests: `typescript-language-server` (with `typescript`) and `pyright`, from the
 * repository's node_modules when they are devDependencies, else from the folder `$TOOLGATE_LSP_SERVERS_DIR` names,
 * else `~/.cache/toolgate-lsp`, installed there on demand with
 * `npm install --prefix`. They are not dependencies of toolgate (the tool finds servers in settings, the project's
 * node_modules/.bin or PATH); this keeps the tests runnable on a fresh machine.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const LSP_TEST_PACKAGES = ['typescript-language-server@6.0.2', 'typescript@6.0.3', 'pyright@1.1.414'];

/** The `.bin` folder holding both servers, or the reason they cannot be had. */
export function lspServersBin(): { bin: string } | { skip: string } {
  // As devDependencies of the repository, when they are.
  const own = path.resolve(import.meta.dirname, '../../../../node_modules/.bin');
  if (existsSync(path.join(own, 'typescript-language-server')) && existsSync(path.join(own, 'pyright-langserver'))) return { bin: own };
  const dir = process.env.TOOLGATE_LSP_SERVERS_DIR ?? path.join(os.homedir(), '.cache', 'toolgate-lsp');
  const bin = path.join(dir, 'node_modules', '.bin');
  const ready = () => existsSync(path.join(bin, 'typescript-language-server')) && existsSync(path.join(bin, 'pyright-langserver'));
  if (ready()) return { bin };
  try {
    execFileSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', ...LSP_TEST_PACKAGES], { stdio: 'ignore', timeout: 300_000 });
  } catch (error) {
    return { skip: `the language servers could not be installed into ${dir} (${error instanceof Error ? error.message.split('\n')[0] : String(error)})` };
  }
  return ready() ? { bin } : { skip: `npm install left no servers in ${bin}` };
}
