import type Anthropic from '@anthropic-ai/sdk';
import { expectTypeOf, test } from 'vitest';
import { toolToAPI, toolsToAPI } from './api-format.js';

test('toolToAPI produces the SDK tool param type, usable in a messages.create request', () => {
  type Def = Awaited<ReturnType<typeof toolToAPI>>;
  expectTypeOf<Def>().toMatchTypeOf<Anthropic.Messages.ToolUnion>();
  expectTypeOf<Awaited<ReturnType<typeof toolsToAPI>>>().toMatchTypeOf<Anthropic.Messages.MessageCreateParams['tools']>();
});
