/**
 * `toolgate plugin` — plugins in Claude Code's format (settings/plugin-*.ts):
 *   toolgate plugin validate DIR                what a plugin folder contains, or why it cannot load (exit 1)
 *   toolgate plugin list [--json]               the settings' marketplaces and their plugins, installed and enabled ones
 *   toolgate plugin install PLUGIN@MARKETPLACE [--yes]
 *                                               shows what the plugin contains, asks, copies it into the state folder
 *                                               and enables it; headless (no terminal) it needs --yes
 *   toolgate plugin enable|disable PLUGIN@MARKETPLACE   `enabledPlugins` in the user's settings
 */
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline/promises';
import type { Command } from 'commander';
import { describePlugin } from '../../settings/plugin-describe.js';
import { readPluginFolder, type PluginFolder } from '../../settings/plugin-folder.js';
import { fetchMarketplace, installPlugin, pluginSettingsOf, readInstalled, readMarketplace, setPluginEnabled, splitRef, type PluginStateOptions } from '../../settings/plugin-install.js';

interface WhereOptions {
  cwd: string;
  home?: string;
}

function state(opts: WhereOptions): PluginStateOptions {
  return { cwd: path.resolve(opts.cwd), env: process.env, homeDir: opts.home ?? process.env.HOME ?? os.homedir() };
}

const out = (line: string): void => void process.stdout.write(`${line}\n`);

export function registerPluginCommand(program: Command): void {
  const plugin = program.command('plugin').description("plugins in Claude Code's format: validate, list, install, enable, disable");
  const withWhere = (cmd: Command) => cmd.option('--cwd <dir>', 'project folder (its settings are read)', process.cwd()).option('--home <dir>', 'home folder (user settings)');

  plugin
    .command('validate')
    .description('check a plugin folder and show what it contains')
    .argument('<dir>', 'the plugin folder')
    .action((dir: string) => {
      const r = readPluginFolder(path.resolve(dir));
      for (const w of r.warnings) process.stderr.write(`toolgate plugin: warning: ${w}\n`);
      if (!r.plugin) {
        for (const e of r.errors) process.stderr.write(`toolgate plugin: ${e}\n`);
        process.exitCode = 1;
        return;
      }
      for (const line of describePlugin(r.plugin)) out(line);
    });

  withWhere(plugin.command('list').description('marketplaces of the settings, their plugins, and which are installed and enabled'))
    .option('--json', 'print JSON')
    .action(async (opts: WhereOptions & { json?: boolean }) => {
      const s = state(opts);
      const settings = pluginSettingsOf(s);
      for (const w of settings.warnings) process.stderr.write(`toolgate plugin: warning: ${w}\n`);
      const installed = readInstalled(s);
      const rows: { ref: string; installed: boolean; enabled: boolean; description?: string }[] = [];
      for (const [name, source] of settings.marketplaces) {
        try {
          for (const e of readMarketplace(await fetchMarketplace(name, source, s)).entries) {
            const ref = `${e.name}@${name}`;
            rows.push({ ref, installed: ref in installed, enabled: settings.enabled.get(ref) === true, ...(e.description ? { description: e.description } : {}) });
          }
        } catch (error) {
          process.stderr.write(`toolgate plugin: marketplace ${name}: ${(error as Error).message}\n`);
        }
      }
      for (const ref of Object.keys(installed)) if (!rows.some((r) => r.ref === ref)) rows.push({ ref, installed: true, enabled: settings.enabled.get(ref) === true });
      if (opts.json) {
        out(JSON.stringify(rows));
        return;
      }
      if (rows.length === 0) out('no plugins (declare a marketplace in the settings\' extraKnownMarketplaces)');
      for (const r of rows) out(`${r.ref}  ${r.installed ? (r.enabled ? 'installed, enabled' : 'installed, disabled') : 'not installed'}${r.description ? `  ${r.description}` : ''}`);
    });

  withWhere(plugin.command('install').description('install a plugin from a marketplace of the settings (shows what it contains first)').argument('<plugin>', 'plugin@marketplace'))
    .option('--yes', 'install without asking (required when there is no terminal to ask on)')
    .action(async (ref: string, opts: WhereOptions & { yes?: boolean }) => {
      const s = state(opts);
      const done = await installPlugin(ref, s, (p) => confirmInstall(p, opts.yes === true));
      if (!done) {
        process.stderr.write(`toolgate plugin: ${ref} not installed\n`);
        process.exitCode = 1;
        return;
      }
      const file = setPluginEnabled(ref, true, s);
      out(`installed ${ref} into ${done.installed.path}; enabled in ${file}`);
    });

  for (const [verb, on] of [['enable', true], ['disable', false]] as const) {
    withWhere(plugin.command(verb).description(`${verb} an installed plugin (enabledPlugins in the user's settings)`).argument('<plugin>', 'plugin@marketplace')).action((ref: string, opts: WhereOptions) => {
      const s = state(opts);
      splitRef(ref);
      if (on && !(ref in readInstalled(s))) {
        process.stderr.write(`toolgate plugin: ${ref} is not installed (toolgate plugin install ${ref})\n`);
        process.exitCode = 1;
        return;
      }
      out(`${on ? 'enabled' : 'disabled'} ${ref} in ${setPluginEnabled(ref, on, s)}`);
    });
  }
}

/** Shows what the plugin would add and run; asks on a terminal, else only `--yes` installs. */
async function confirmInstall(plugin: PluginFolder, yes: boolean): Promise<boolean> {
  process.stderr.write(`${describePlugin(plugin).join('\n')}\nA plugin's hooks and MCP servers run as you, with your permissions.\n`);
  if (yes) return true;
  if (process.stdin.isTTY !== true || process.stderr.isTTY !== true) {
    process.stderr.write('toolgate plugin: no terminal to ask on: pass --yes to install it\n');
    return false;
  }
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`Install ${plugin.name}? [y/N] `)).trim());
  } finally {
    rl.close();
  }
}
