import { describe, expect, it } from 'vitest';
import { buildRedactor, isRedactableSecret, isSecretEnvName, redactorFor, SecretRedactor, secretEnvNames, urlCredentials } from './redaction.js';

describe('which environment variables are secrets', () => {
  it('covers the credential names a CI or a laptop carries', () => {
    for (const name of [
      'ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GH_TOKEN', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN',
      'DATABASE_URL', 'REPLICA_DATABASE_URL', 'PGPASSWORD', 'MYSQL_PASSWORD', 'SLACK_WEBHOOK_URL', 'DISCORD_WEBHOOK',
      'GOOGLE_APPLICATION_CREDENTIALS', 'GOOGLE_APPLICATION_CREDENTIALS_JSON', 'SENTRY_DSN', 'GITHUB_APP_PRIVATE_KEY',
      'AZURE_CLIENT_SECRET', 'STRIPE_SECRET_KEY', 'AZURE_STORAGE_CONNECTION_STRING', 'npm_token',
    ]) {
      expect(isSecretEnvName(name), name).toBe(true);
    }
    for (const name of ['PATH', 'HOME', 'TOKENIZER_PATH', 'PASSWORD_STORE_DIR', 'EDITOR', 'AWS_REGION', 'NODE_OPTIONS']) {
      expect(isSecretEnvName(name), name).toBe(false);
    }
  });

  it('treats a URL carrying a password as a secret whatever the variable is called', () => {
    expect(urlCredentials('postgres://app:s3cr3t-pw@db.internal:5432/app')).toEqual({ password: 's3cr3t-pw' });
    expect(urlCredentials('https://example.com/path')).toBeUndefined();
    expect(urlCredentials('https://user@example.com/')).toBeUndefined();
    const names = secretEnvNames({ REDIS: 'redis://:hunter2-long@cache:6379', SITE: 'https://example.com', PATH: '/bin' });
    expect(names).toEqual(['REDIS']);
    expect(secretEnvNames({ GH_TOKEN: 'x'.repeat(20) }, { passEnv: ['gh_token'] })).toEqual([]);
  });
});

describe('SecretRedactor', () => {
  const redactor = new SecretRedactor([
    { label: 'API_KEY', value: 'sk-live-0123456789' },
    { label: 'LONGER', value: 'sk-live-0123456789-and-more' },
    { label: 'SHORT', value: 'abc' },
  ]);

  it('replaces every occurrence with a marker naming the variable, longest secret first', () => {
    expect(redactor.redactText('a sk-live-0123456789 b sk-live-0123456789-and-more c sk-live-0123456789'))
      .toBe('a [REDACTED:API_KEY] b [REDACTED:LONGER] c [REDACTED:API_KEY]');
  });

  it('leaves text without secrets as the same string, and ignores values too short to be told from words', () => {
    const text = 'abc abc nothing here';
    expect(redactor.redactText(text)).toBe(text);
    expect(redactor.size).toBe(2);
  });

  it('redacts text parts of a block and keeps images and the block object when clean', () => {
    const clean = { type: 'tool_result' as const, tool_use_id: 't', content: 'fine' };
    expect(redactor.redactBlock(clean)).toBe(clean);
    const image = { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: 'sk-live-0123456789' } };
    const mixed = redactor.redactBlock({ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'key=sk-live-0123456789' }, image] });
    expect(mixed.content).toEqual([{ type: 'text', text: 'key=[REDACTED:API_KEY]' }, image]);
  });

  it('builds from the environment, configured strings and secret files', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const dir = mkdtempSync('/tmp/toolgate-redact-');
    try {
      writeFileSync(`${dir}/.env`, '# comment line here\nexport STRIPE_KEY="rk_live_abcdef123456"\nPLAIN=notsecretvalue-but-listed\n');
      const r = buildRedactor(
        { secrets: { DEPLOY_KEY: 'deploy-key-998877' }, secretFiles: [`${dir}/.env`, `${dir}/missing`] },
        { DATABASE_URL: 'postgres://u:pg-pass-42@h/db', PATH: '/bin' },
      );
      const out = r.redactText('url postgres://u:pg-pass-42@h/db pw pg-pass-42 key deploy-key-998877 stripe rk_live_abcdef123456 # comment line here');
      expect(out).toBe('url [REDACTED:DATABASE_URL] pw [REDACTED:DATABASE_URL] key [REDACTED:DEPLOY_KEY] stripe ' + `[REDACTED:file:${dir}/.env] # comment line here`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('short secrets', () => {
  it('a value a name calls secret counts from 4 characters, as a whole word under 6; flags and 3 characters never', () => {
    expect([isRedactableSecret('pw9x', true), isRedactableSecret('pw9x'), isRedactableSecret('abc', true), isRedactableSecret('true', true), isRedactableSecret('OFF', true)])
      .toEqual([true, false, false, false, false]);
    const r = buildRedactor({ secrets: ['zq7k'] }, { DB_PASSWORD: 'x7Hq2', FEATURE_TOKEN: 'true', APP_SECRET: '1', PATH: '/bin' });
    expect(r.redactText('pw=x7Hq2 in ax7Hq2b; zq7k, enabled=true, 1'))
      .toBe('pw=[REDACTED:DB_PASSWORD] in ax7Hq2b; [REDACTED:secret], enabled=true, 1');
  });

  it('settings.env credentials are redacted; a new settings object (a reload) gets its own redactor', () => {
    const a = { env: { RELOADED_TOKEN: 'first-value-111' } };
    const b = { env: { RELOADED_TOKEN: 'second-value-222' } };
    const ra = redactorFor({ options: { settings: a } } as never, {});
    const rb = redactorFor({ options: { settings: b } } as never, {});
    expect(ra?.redactText('first-value-111 second-value-222')).toBe('[REDACTED:RELOADED_TOKEN] second-value-222');
    expect(rb?.redactText('first-value-111 second-value-222')).toBe('first-value-111 [REDACTED:RELOADED_TOKEN]');
  });

  it('messages: string content, text blocks and tool_results inside are redacted; a clean message is the same object', () => {
    const r = new SecretRedactor([{ label: 'K', value: 'message-secret-1' }]);
    const clean = { role: 'user' as const, content: 'fine' };
    expect(r.redactMessage(clean)).toBe(clean);
    expect(r.redactMessage({ role: 'user', content: 'a message-secret-1' })).toEqual({ role: 'user', content: 'a [REDACTED:K]' });
    expect(
      r.redactMessage({ role: 'user', content: [{ type: 'text', text: 'message-secret-1' }, { type: 'tool_result', tool_use_id: 't', content: 'x message-secret-1' }] }),
    ).toEqual({ role: 'user', content: [{ type: 'text', text: '[REDACTED:K]' }, { type: 'tool_result', tool_use_id: 't', content: 'x [REDACTED:K]' }] });
  });
});
