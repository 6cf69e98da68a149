import { describe, expect, it } from 'vitest';
import { applyHttpPolicy, hookSourceIsOff, urlMatchesPattern } from './hook-policy.js';

describe('hook policy', () => {
  it('a URL pattern: * is any run of characters, the rest literal and anchored at both ends', () => {
    expect(urlMatchesPattern('https://hooks.example.com/a/b', 'https://hooks.example.com/*')).toBe(true);
    expect(urlMatchesPattern('https://hooks.example.com.evil.net/', 'https://hooks.example.com/*')).toBe(false);
    expect(urlMatchesPattern('http://127.0.0.1:8080/x', 'http://127.0.0.1:*')).toBe(true);
    expect(urlMatchesPattern('https://hooksXexample.com/', 'https://hooks.example.com/')).toBe(false);
    expect(urlMatchesPattern('https://a/', '*')).toBe(true);
  });

  it('scopes: all, non-managed (plugins included), project (the repository levels only)', () => {
    expect(hookSourceIsOff({ off: { scope: 'all', why: '' } }, 'policySettings')).toBe(true);
    expect(hookSourceIsOff({ off: { scope: 'non-managed', why: '' } }, 'policySettings')).toBe(false);
    expect(hookSourceIsOff({ off: { scope: 'non-managed', why: '' } }, 'plugin:kit')).toBe(true);
    expect(hookSourceIsOff({ off: { scope: 'project', why: '' } }, 'localSettings')).toBe(true);
    expect(hookSourceIsOff({ off: { scope: 'project', why: '' } }, 'userSettings')).toBe(false);
    expect(hookSourceIsOff(undefined, 'projectSettings')).toBe(false);
  });

  it('every list must allow the URL; env vars keep only names every list has', () => {
    const h = { type: 'http' as const, url: 'https://a.example/x', allowedEnvVars: ['A', 'B', 'C'] };
    const lists = [{ file: 'm', entries: ['https://*'] }, { file: 'u', entries: ['https://b.example/*'] }];
    expect(applyHttpPolicy(h, { httpUrls: lists })).toEqual({ refused: 'https://a.example/x is not in allowedHttpHookUrls (u)' });
    expect(applyHttpPolicy(h, { httpUrls: [{ file: 'm', entries: [] }] })).toHaveProperty('refused');
    const r = applyHttpPolicy(h, { httpEnvVars: [{ file: 'm', entries: ['A', 'B'] }, { file: 'u', entries: ['B', 'C'] }] });
    expect(r).toEqual({ handler: { ...h, allowedEnvVars: ['B'] } });
  });
});
