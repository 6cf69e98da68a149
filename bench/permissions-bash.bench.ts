/**
 * `permissions.bash_decision_us`: median time of one `checkBashPermission` for a typical compound command with ten
 * rules. Measured cold (a different command every call, so the tree-sitter parse is included) and warm (the same
 * command again, as when a tool call checks permissions, read-only-ness and concurrency safety in turn).
 */
import { getEmptyToolPermissionContext, type PermissionRule } from '../src/tool/permission-types.js';
import { checkBashPermission } from '../src/permissions/bash/index.js';
import { timePerCallUs, type Benchmark } from './lib.js';

function rule(ruleBehavior: PermissionRule['ruleBehavior'], ruleContent: string): PermissionRule {
  return { source: 'projectSettings', ruleBehavior, ruleValue: { toolName: 'Bash', ruleContent } };
}

const cwd = '/tmp/toolgate-bench-project';
const ctx = {
  ...getEmptyToolPermissionContext(cwd),
  alwaysAllowRules: [rule('allow', 'npm run build'), rule('allow', 'npm test'), rule('allow', 'npm run test:*'), rule('allow', 'git commit *'), rule('allow', 'make:*'), rule('allow', 'cargo build *')],
  alwaysDenyRules: [rule('deny', 'rm -rf:*'), rule('deny', 'git push --force:*'), rule('deny', 'curl * | sh')],
  alwaysAskRules: [rule('ask', 'git push:*')],
};
const deps = {
  checkWritePath: (p: string) => (p.startsWith(`${cwd}/`) ? { behavior: 'allow' as const } : { behavior: 'ask' as const, message: `write ${p}` }),
};

export const benchmarks: Benchmark[] = [
  {
    group: 'permissions',
    names: ['permissions.bash_decision_us', 'permissions.bash_decision_warm_us'],
    async run() {
      let i = 0;
      const cold = await timePerCallUs(
        () => {
          const result = checkBashPermission(`git status && npm run build 2>&1 | tail -n ${20 + (i++ % 100_000)}`, ctx, deps);
          if (result.behavior !== 'allow') throw new Error(`unexpected ${result.behavior}`);
        },
        { warmup: 200, samples: 40, batch: 50 },
      );
      const warm = await timePerCallUs(() => checkBashPermission('git status && npm run build 2>&1 | tail -n 20', ctx, deps), { warmup: 200, samples: 40, batch: 50 });
      return [
        { name: 'permissions.bash_decision_us', value: cold, unit: 'us' },
        { name: 'permissions.bash_decision_warm_us', value: warm, unit: 'us' },
      ];
    },
  },
];
