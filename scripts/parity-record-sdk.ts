/**
 * Re-records test/parity/sdk/recordings.json: the normalized values the real Claude Agent SDK gives on the parity
 * scenarios of test/parity/sdk/scenarios.ts. The SDK is never a dependency: install it outside the repository (for
 * example `npm install --prefix ~/.cache/toolgate-bench @anthropic-ai/claude-agent-sdk@0.3.328`, or point
 * TOOLGATE_AGENT_SDK_DIR at an installed copy), then `npx tsx scripts/parity-record-sdk.ts [scenario…]`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadRealAgentSdk, realAgentSdkEntry } from '../test/helpers/agent-sdk-scenarios.js';
import { runParityScenario, type SdkModule } from '../test/parity/sdk/run.js';
import { PARITY_SCENARIOS } from '../test/parity/sdk/scenarios.js';

const sdk = (await loadRealAgentSdk()) as SdkModule | undefined;
if (!sdk) {
  process.stderr.write('the Claude Agent SDK is not installed outside the repository (see the header of this script)\n');
  process.exit(1);
}
const version = JSON.parse(readFileSync(path.join(path.dirname(realAgentSdkEntry()!), 'package.json'), 'utf8')).version as string;
const file = path.resolve(import.meta.dirname, '../test/parity/sdk/recordings.json');
const only = process.argv.slice(2);
const previous = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { scenarios: Record<string, unknown> }).scenarios : {};
const scenarios: Record<string, unknown> = {};
for (const scenario of PARITY_SCENARIOS) {
  if (only.length > 0 && !only.includes(scenario.name)) {
    if (previous[scenario.name]) scenarios[scenario.name] = previous[scenario.name];
    continue;
  }
  scenarios[scenario.name] = await runParityScenario(sdk, scenario);
  process.stderr.write(`${scenario.name}: recorded\n`);
}
writeFileSync(file, `${JSON.stringify({ agentSdkVersion: version, scenarios }, null, 1)}\n`);
process.stderr.write(`wrote ${file}\n`);
