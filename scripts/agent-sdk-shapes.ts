/**
 * Regenerates test/fixtures/agent-sdk/shapes.json: the shapes (types, subtypes, field names, nesting — no values) of
 * the messages the real Claude Agent SDK yields on the scripted scenarios of test/helpers/agent-sdk-scenarios.ts.
 * The SDK is not a dependency: install it outside the repository first (`npm run bench -- --filter agentsdk` does,
 * into ~/.cache/toolgate-bench, or set TOOLGATE_AGENT_SDK_DIR), then run `npx tsx scripts/agent-sdk-shapes.ts`.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadRealAgentSdk, realAgentSdkEntry, runScenario, SCENARIOS, shapeOf } from '../test/helpers/agent-sdk-scenarios.js';

const sdk = await loadRealAgentSdk();
if (!sdk) {
  process.stderr.write('the Claude Agent SDK is not installed outside the repository (see the header of this script)\n');
  process.exit(1);
}
const version = (await import(path.join(path.dirname(realAgentSdkEntry()!), 'package.json'), { with: { type: 'json' } })).default.version as string;
const scenarios: Record<string, unknown> = {};
for (const scenario of SCENARIOS) {
  const run = await runScenario(sdk, scenario);
  scenarios[scenario.name] = { messages: run.messages.map(shapeOf), ...(run.error !== undefined ? { throws: run.error.split(':')[0] } : {}) };
  process.stderr.write(`${scenario.name}: ${run.messages.length} messages\n`);
}
const file = path.resolve(import.meta.dirname, '../test/fixtures/agent-sdk/shapes.json');
writeFileSync(file, `${JSON.stringify({ agentSdkVersion: version, scenarios }, null, 1)}\n`);
process.stderr.write(`wrote ${file}\n`);
