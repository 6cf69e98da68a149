/**
 * A worker interns each call's settings by their exact serialised content (remote-tool-call.ts `internSettings`), so
 * that the secret redactor, cached per settings object (redaction.ts `redactorFor`), is built once per distinct
 * settings instead of once per call (docs/security.md, "Settings interned on workers"). The attacker is whoever can
 * make two calls' settings differ only where a secret lives — a session whose `env` or `baseEnv` holds a rotated
 * token, another session on the same worker pool — hoping the second call runs with the first call's redactor, which
 * does not know the second call's secret (Bash on a worker asks it whether an exported value is a secret). Each case
 * runs the worker's side as the Restate service does (settings parsed from JSON, interned, `executeRemoteToolCall`)
 * with a tool that asks the real redactor, and fails when the interning key is narrowed (to the settings' keys, or to
 * anything short of every value).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { executeRemoteToolCall, internSettings, serializePermissionContext, type RemoteToolCall } from '../../src/distributed/remote-tool-call.js';
import { redactorFor } from '../../src/execution/redaction.js';
import { buildTool } from '../../src/tool/build-tool.js';
import { getEmptyToolPermissionContext } from '../../src/tool/permission-types.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'tg-worker-intern-attack-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Answers with `text` as this call's redactor shows it. */
const Probe = buildTool({
  name: 'Probe',
  inputSchema: z.strictObject({ text: z.string() }),
  maxResultSizeChars: 10_000,
  prompt: async () => 'Redacts its input (test tool).',
  permissionTraits: { kind: 'read' },
  isReadOnly: () => true,
  call: async (input, context) => ({ data: redactorFor(context)?.redactText(input.text) ?? input.text }),
});

let n = 0;
/** One call as a worker receives it: the whole call parsed from the wire, its settings interned. */
async function onWorker(settingsJson: string, text: string): Promise<unknown> {
  const wire: RemoteToolCall = JSON.parse(
    JSON.stringify({
      sessionId: 'attack',
      toolUseId: `toolu_${++n}`,
      tool: 'Probe',
      input: { text },
      cwd: root,
      permissionContext: serializePermissionContext(getEmptyToolPermissionContext(root)),
      settings: JSON.parse(settingsJson),
    }),
  );
  const result = await executeRemoteToolCall({ ...wire, settings: internSettings(wire.settings) }, {
    tools: [Probe],
    workspaces: [root],
    signal: new AbortController().signal,
    stateDir: root,
  });
  if (!result.ok) throw new Error(result.error.message);
  return result.data;
}

describe('settings interned on a worker', () => {
  it('equal settings share one object (what makes the redactor cache hit)', () => {
    const text = JSON.stringify({ env: { DEPLOY_TOKEN: 'shared-token-0000' } });
    expect(internSettings(JSON.parse(text))).toBe(internSettings(JSON.parse(text)));
  });

  it('settings.env differing only in one secret value: the second call redacts its own secret', async () => {
    const first = 'first-deploy-token-1111';
    const second = 'second-deploy-token-2222';
    expect(await onWorker(JSON.stringify({ env: { DEPLOY_TOKEN: first } }), `t=${first}`)).toBe('t=[REDACTED:DEPLOY_TOKEN]');
    expect(await onWorker(JSON.stringify({ env: { DEPLOY_TOKEN: second } }), `t=${second}`)).toBe('t=[REDACTED:DEPLOY_TOKEN]');
  });

  it('baseEnv differing only in one secret value: the second call redacts its own secret', async () => {
    const first = 'first-base-secret-3333';
    const second = 'second-base-secret-4444';
    expect(await onWorker(JSON.stringify({ baseEnv: { SERVICE_PASSWORD: first } }), first)).toBe('[REDACTED:SERVICE_PASSWORD]');
    expect(await onWorker(JSON.stringify({ baseEnv: { SERVICE_PASSWORD: second } }), second)).toBe('[REDACTED:SERVICE_PASSWORD]');
  });

  it('configured secrets differing in one value: the second call redacts its own', async () => {
    expect(await onWorker(JSON.stringify({ redaction: { secrets: { VAULT: 'vault-secret-aaaa' } } }), 'vault-secret-aaaa')).toBe('[REDACTED:VAULT]');
    expect(await onWorker(JSON.stringify({ redaction: { secrets: { VAULT: 'vault-secret-bbbb' } } }), 'vault-secret-bbbb')).toBe('[REDACTED:VAULT]');
  });

  it('a secret file rewritten between two calls with equal settings: the second call redacts the new contents', async () => {
    const file = path.join(root, 'key.txt');
    const settings = JSON.stringify({ redaction: { secretFiles: [file] } });
    writeFileSync(file, 'file-secret-old-5555\n');
    expect(await onWorker(settings, 'file-secret-old-5555')).toBe(`[REDACTED:file:${file}]`);
    writeFileSync(file, 'file-secret-new-6666\n');
    expect(await onWorker(settings, 'file-secret-new-6666')).toBe(`[REDACTED:file:${file}]`);
  });
});
