// A custom tool and one model turn through the runtime. The scripted server plays the model; to use Claude, drop
// it and `baseURL` and set ANTHROPIC_API_KEY.
import Anthropic from '@anthropic-ai/sdk';
import * as z from 'zod';
import { buildTool, createToolRuntime, query } from 'toolgate';
import { startScriptedServer } from 'toolgate/testing';

const Weather = buildTool({
  name: 'Weather',
  inputSchema: z.object({ city: z.string().describe('City name') }),
  maxResultSizeChars: 1_000,
  prompt: async () => 'The current weather in a city.',
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  call: async ({ city }) => ({ data: `Sunny, 21 °C in ${city}` }),
});

const server = await startScriptedServer([
  { content: [{ type: 'tool_use', name: 'Weather', input: { city: 'Lisbon' } }] },
  (request) => ({ content: [{ type: 'text', text: `Tool said: ${JSON.stringify(request.body.messages.at(-1).content[0].content)}` }] }),
]);
const client = new Anthropic({ apiKey: 'test', baseURL: server.url });
const runtime = await createToolRuntime({ tools: [Weather], rules: { allow: ['Weather'] }, settings: { sources: [] } });
for await (const event of query({ runtime, client, prompt: 'Weather in Lisbon?' })) {
  if (event.type === 'result') console.log(event.result.text);
}
await runtime.dispose();
await server.close();
