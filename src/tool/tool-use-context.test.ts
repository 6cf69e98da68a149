import { describe, expect, it } from 'vitest';
import { FileStateCache } from './file-state-cache.js';
import { NotificationQueue } from './notification-queue.js';
import { getEmptyToolPermissionContext } from './permission-types.js';
import { createChildAbortController, createSubagentContext, createToolUseContext, type ContentReplacementState } from './tool-use-context.js';

class CountingReplacementState implements ContentReplacementState {
  constructor(public total = 0) {}
  clone(): CountingReplacementState {
    return new CountingReplacementState(this.total);
  }
}

function parent() {
  const requestPermission = async () => ({ behavior: 'allow' as const });
  const ctx = createToolUseContext({
    tools: [],
    permissionContext: getEmptyToolPermissionContext('/work'),
    sessionDir: '/tmp/session',
    contentReplacementState: new CountingReplacementState(500),
    services: { notifications: new NotificationQueue() },
    ui: { requestPermission },
    settings: { requireReadBeforeWrite: true },
  });
  ctx.readFileState.set('/work/a.ts', { contentHash: 'h', mtimeMs: 1, size: 1, partial: false, timestamp: 1 });
  ctx.localDenialTracking.totalDenials = 3;
  return { ctx, requestPermission };
}

describe('createToolUseContext', () => {
  it('keeps app state in memory and lets setAppState replace it', () => {
    const { ctx } = parent();
    expect(ctx.getAppState().cwd).toBe('/work');
    ctx.setAppState((s) => ({ ...s, cwd: '/work/src' }));
    expect(ctx.getAppState().cwd).toBe('/work/src');
    expect(ctx.options.isNonInteractiveSession).toBe(false);
    expect(ctx.agentDepth).toBe(0);
  });
  it('is headless when no permission handler is given', () => {
    const ctx = createToolUseContext({ tools: [], permissionContext: getEmptyToolPermissionContext('/w'), sessionDir: '/tmp/s' });
    expect(ctx.options.isNonInteractiveSession).toBe(true);
  });
});

describe('createSubagentContext decides field by field', () => {
  it('shares options, services and app-state reads', () => {
    const { ctx } = parent();
    const child = createSubagentContext(ctx);
    expect(child.options).toEqual(ctx.options);
    expect(child.services).toBe(ctx.services);
    expect(child.getAppState()).toBe(ctx.getAppState());
  });
  it('clones readFileState: the child sees the parent’s reads, its own do not leak back', () => {
    const { ctx } = parent();
    const child = createSubagentContext(ctx);
    expect(child.readFileState).not.toBe(ctx.readFileState);
    expect(child.readFileState.get('/work/a.ts')?.contentHash).toBe('h');
    child.readFileState.set('/work/b.ts', { contentHash: 'x', mtimeMs: 1, size: 1, partial: false, timestamp: 1 });
    expect(ctx.readFileState.has('/work/b.ts')).toBe(false);
  });
  it('clones the content-replacement state', () => {
    const { ctx } = parent();
    const child = createSubagentContext(ctx);
    expect(child.contentReplacementState).not.toBe(ctx.contentReplacementState);
    expect((child.contentReplacementState as CountingReplacementState).total).toBe(500);
  });
  it('starts denial tracking fresh and messages empty', () => {
    const { ctx } = parent();
    const child = createSubagentContext(ctx);
    expect(child.localDenialTracking).toEqual({ consecutiveDenials: 0, totalDenials: 0 });
    expect(child.messages).toEqual([]);
  });
  it('sync children write app state through; async children cannot', () => {
    const { ctx } = parent();
    createSubagentContext(ctx).setAppState((s) => ({ ...s, cwd: '/work/sync' }));
    expect(ctx.getAppState().cwd).toBe('/work/sync');
    createSubagentContext(ctx, { isAsync: true }).setAppState((s) => ({ ...s, cwd: '/elsewhere' }));
    expect(ctx.getAppState().cwd).toBe('/work/sync');
  });
  it('links a sync child’s abort to the parent, not the other way round; async children are detached', () => {
    const { ctx } = parent();
    const sync = createSubagentContext(ctx);
    const async_ = createSubagentContext(ctx, { isAsync: true });
    sync.abortController.abort();
    expect(ctx.abortController.signal.aborted).toBe(false);
    const sync2 = createSubagentContext(ctx);
    ctx.abortController.abort('stop');
    expect(sync2.abortController.signal.aborted).toBe(true);
    expect(async_.abortController.signal.aborted).toBe(false);
  });
  it('keeps only the permission handler of the UI (bubble mode escalates to it)', () => {
    const { ctx, requestPermission } = parent();
    const child = createSubagentContext(ctx);
    expect(child.ui).toEqual({ requestPermission });
  });
  it('gives a new identity one level deeper', () => {
    const { ctx } = parent();
    const a = createSubagentContext(ctx, { agentType: 'explore' });
    const b = createSubagentContext(a, { agentId: 'fixed' });
    expect(a.agentId).toMatch(/^agent-\d+$/);
    expect([a.agentDepth, b.agentDepth, b.agentId, a.agentType]).toEqual([1, 2, 'fixed', 'explore']);
  });
});

describe('createChildAbortController', () => {
  it('aborts at once when the parent already has', () => {
    const p = new AbortController();
    p.abort('why');
    const c = createChildAbortController(p);
    expect(c.signal.aborted).toBe(true);
    expect(c.signal.reason).toBe('why');
  });
});

describe('FileStateCache', () => {
  const rec = (content?: string) => ({ contentHash: 'h', mtimeMs: 1, size: 1, partial: false, timestamp: 1, content });
  it('normalises keys', () => {
    const c = new FileStateCache();
    c.set('/a/b/../c.txt', rec());
    expect(c.has('/a/c.txt')).toBe(true);
  });
  it('evicts the least recently used beyond maxEntries', () => {
    const c = new FileStateCache({ maxEntries: 2 });
    c.set('/1', rec());
    c.set('/2', rec());
    c.get('/1');
    c.set('/3', rec());
    expect(c.keys().sort()).toEqual(['/1', '/3']);
  });
  it('bounds kept content, keeping an oversized record without its content', () => {
    const c = new FileStateCache({ maxContentChars: 10 });
    c.set('/big', rec('x'.repeat(50)));
    expect(c.get('/big')?.content).toBeUndefined();
    c.set('/a', rec('123456'));
    c.set('/b', rec('123456'));
    expect(c.has('/a')).toBe(false);
    expect(c.get('/b')?.content).toBe('123456');
  });
  it('clones independently, keeping recency', () => {
    const c = new FileStateCache({ maxEntries: 2 });
    c.set('/1', rec());
    c.set('/2', rec());
    c.get('/1');
    const d = c.clone();
    d.set('/3', rec());
    expect(d.keys().sort()).toEqual(['/1', '/3']);
    expect(c.keys().sort()).toEqual(['/1', '/2']);
  });
});

describe('NotificationQueue', () => {
  it('drains in order and empties', () => {
    const q = new NotificationQueue();
    q.push({ role: 'user', content: 'a' });
    q.push({ role: 'user', content: 'b' });
    expect(q.drain().map((m) => m.content)).toEqual(['a', 'b']);
    expect(q.size).toBe(0);
  });
});
