import * as z from 'zod';
import { buildTool, createToolRuntime, toolResultText } from 'toolgate';

const Echo = buildTool({
  name: 'Echo',
  inputSchema: z.object({ text: z.string().describe('What to say back') }),
  maxResultSizeChars: 10_000,
  prompt: async () => 'Repeats the text it is given.',
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  call: async ({ text }) => ({ data: text }),
});

// The built-in tools plus Echo, behind the permission rules of this folder's settings files.
const runtime = await createToolRuntime({ tools: [Echo] });
const definitions = await runtime.definitions(); // the `tools` array for the Messages API
console.log(definitions.map((d) => d.name).join(' '));
// → Agent AskUserQuestion Bash … Write Echo

// The tool_use blocks of an assistant message in, one tool_result per call out, in call order.
const { results } = await runtime.run([{ type: 'tool_use', id: 'toolu_1', name: 'Echo', input: { text: 'hello' } }]);
console.log(toolResultText(results[0]!)); // → hello
await runtime.dispose();
