/**
 * The scripted model of bench/agentsdk.bench.ts: a Read of the session's file, then an answer; a hold before the
 * answer while `hold()` says so. In the bench's process for sequential sessions; in a process of its own
 * (fixtures/agentsdk-model-server.ts) for thousands of concurrent ones, whose sockets would otherwise count twice
 * against this process's descriptors (client and server end), where a real model server's never do.
 */
import { startScriptedServer, type RecordedRequest, type ScriptedResponse, type ScriptedServer } from '../src/testing/index.js';
import { isSideRequest } from '../test/helpers/agent-sdk-scenarios.js';

export async function modelServer(hold: () => boolean = () => false, onSecond: () => void = () => {}, sessions = 1_000): Promise<ScriptedServer> {
  const serve = (request: RecordedRequest): ScriptedResponse => {
    if (isSideRequest(request)) return { content: [{ type: 'text', text: 'A title' }] };
    const messages = request.body.messages as { role: string; content: unknown }[];
    const prompt = JSON.stringify(messages[0]?.content ?? '');
    const file = /read (\S+?\.txt)/.exec(prompt)?.[1];
    if (!JSON.stringify(messages.at(-1)?.content ?? '').includes('tool_result')) {
      return { content: [{ type: 'text', text: 'I will read it.' }, { type: 'tool_use', name: 'Read', input: { file_path: file } }] };
    }
    onSecond();
    return { content: [{ type: 'wait', until: () => !hold(), pollMs: 10, timeoutMs: 600_000 }, { type: 'text', text: 'It says hello.' }] };
  };
  // It keeps no requests, or their bodies would count as the sessions' memory. Two requests a session and a side
  // request or two (a title): four turns a session leave room.
  return startScriptedServer(Array.from({ length: 4 * sessions + 100 }, () => serve), { keepRequests: false });
}
