/**
 * `permissions.bash_decision_us`: median time of one `checkBashPermission` for a typical compound command with ten
 * rules, cold: a different command every call, so the tree-sitter parse and the whole analysis are included.
 * `permissions.bash_decision_warm_us`: the same command again (the analysis is cached), as when a tool call checks
 * permissions, read-only-ness and concurrency safety of one command in turn.
 * `permissions.bash_parse_us`: the floor inside the cold figure — tree-sitter's parse of the same commands and the
 * copy-out into plain JS nodes, nothing else.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getEmptyToolPermissionContext, type PermissionRule, type ToolPermissionContext } from '../src/tool/permission-types.js';
import { checkBashPermission, type BashPermissionDeps } from '../src/permissions/bash/index.js';
import { parseBash } from '../src/permissions/bash/parser.js';
import { timePerCallUs, type Benchmark } from './lib.js';
import { loadBashParser } from '../src/permissions/bash/parser.js';

await loadBashParser();

function rule(ruleBehavior: PermissionRule['ruleBehavior'], ruleContent: string): PermissionRule {
  return { source: 'projectSettings', ruleBehavior, ruleValue: { toolName: 'Bash', ruleContent } };
}

function setup(cwd: string): { ctx: ToolPermissionContext; deps: BashPermissionDeps } {
  const allow = ['npm run build', 'npm test', 'npm run test:*', 'git commit *', 'make:*', 'cargo build *'];
  return {
    ctx: {
      ...getEmptyToolPermissionContext(cwd),
      alwaysAllowRules: allow.map((c) => rule('allow', c)),
      alwaysDenyRules: [rule('deny', 'rm -rf:*'), rule('deny', 'git push --force:*'), rule('deny', 'curl * | sh')],
      alwaysAskRules: [rule('ask', 'git push:*')],
    },
    deps: {
      checkWritePath: (p) => (p.startsWith(`${cwd}/`) ? { behavior: 'allow' } : { behavior: 'ask', message: `write ${p}` }),
    },
  };
}

export const benchmarks: Benchmark[] = [
  {
    group: 'permissions',
    names: ['permissions.bash_decision_us', 'permissions.bash_decision_warm_us', 'permissions.bash_parse_us'],
    async run() {
      const cwd = mkdtempSync(join(tmpdir(), 'toolgate-bench-bash-'));
      const { ctx, deps } = setup(cwd);
      // Steady state: the first few thousand decisions run while V8 is still tiering up the tree-sitter wasm and
      // the analysis code (≈1 ms per decision at first, falling to the steady figure after ~6,000 calls).
      const opts = { warmup: 8000, samples: 40, batch: 50 };
      try {
        let i = 0;
        const cold = await timePerCallUs(() => {
          const result = checkBashPermission(`git status && npm run build 2>&1 | tail -n ${20 + (i++ % 1_000_000)}`, ctx, deps);
          if (result.behavior !== 'allow') throw new Error(`unexpected ${result.behavior}`);
        }, opts);
        const warm = await timePerCallUs(() => checkBashPermission('git status && npm run build 2>&1 | tail -n 20', ctx, deps), opts);
        const parse = await timePerCallUs(() => parseBash(`git status && npm run build 2>&1 | tail -n ${20 + (i++ % 1_000_000)}`), opts);
        return [
          { name: 'permissions.bash_decision_us', value: cold, unit: 'us' },
          { name: 'permissions.bash_decision_warm_us', value: warm, unit: 'us' },
          { name: 'permissions.bash_parse_us', value: parse, unit: 'us' },
        ];
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    },
  },
];
