import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL, MODEL_ALIASES, resolveModel, smallFastModel } from './models.js';
import { MODEL_ALIASES as AGENT_TOOL_ALIASES } from '../tools/agent/index.js';
import { DEFAULT_MODEL as LOOP_DEFAULT } from '../agent/request.js';
import { createToolUseContext } from './tool-use-context.js';
import { getEmptyToolPermissionContext } from './permission-types.js';

describe('the model table', () => {
  it('resolves the aliases to the ids Claude Code 2.1.328 sends, in any case, with the [1m] suffix', () => {
    expect(resolveModel('sonnet', {})).toBe('claude-sonnet-5-5');
    expect(resolveModel('opus', {})).toBe('claude-opus-5-5');
    expect(resolveModel('haiku', {})).toBe('claude-haiku-5-5');
    expect(resolveModel('SONNET', {})).toBe('claude-sonnet-5-5');
    expect(resolveModel('sonnet[1m]', {})).toBe('claude-sonnet-5-5');
    expect(resolveModel('default', {})).toBe('claude-opus-5-5');
  });

  it('passes a full id through unchanged', () => {
    expect(resolveModel('claude-3-foo', {})).toBe('claude-3-foo');
    expect(resolveModel('Claude-Custom', {})).toBe('Claude-Custom');
  });

  it('ANTHROPIC_DEFAULT_*_MODEL replaces an alias; ANTHROPIC_MODEL picks the default', () => {
    expect(resolveModel('sonnet', { ANTHROPIC_DEFAULT_SONNET_MODEL: 'my-sonnet' })).toBe('my-sonnet');
    expect(resolveModel('haiku', { ANTHROPIC_DEFAULT_HAIKU_MODEL: 'my-haiku' })).toBe('my-haiku');
    // The default is the opus alias, so its override moves the default too (as in Claude Code).
    expect(resolveModel(undefined, { ANTHROPIC_DEFAULT_OPUS_MODEL: 'o-x' })).toBe('o-x');
    expect(resolveModel(undefined, { ANTHROPIC_MODEL: 'haiku' })).toBe('claude-haiku-5-5');
    expect(resolveModel('', { ANTHROPIC_MODEL: 'claude-x' })).toBe('claude-x');
    expect(smallFastModel({})).toBe('claude-haiku-5-5');
    expect(smallFastModel({ ANTHROPIC_SMALL_FAST_MODEL: 'sonnet' })).toBe('claude-sonnet-5-5');
  });

  it('is the one table: the Agent tool, the loop and a bare context use it', () => {
    expect(AGENT_TOOL_ALIASES).toBe(MODEL_ALIASES);
    expect(LOOP_DEFAULT).toBe(DEFAULT_MODEL);
    const ctx = createToolUseContext({ tools: [], permissionContext: getEmptyToolPermissionContext('/'), sessionDir: '/tmp/x' });
    expect(ctx.options.mainLoopModel).toBe(DEFAULT_MODEL);
    // A current model, not one the SDK warns is deprecated.
    expect(DEFAULT_MODEL).toBe('claude-opus-5-5');
  });
});
