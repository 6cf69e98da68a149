/**
 * The `Query` of `toolgate/agent-sdk` while a session runs — streaming input (a turn per message, a message sent
 * during a turn handed to the model with the next tool results), interrupt, setModel, setMaxThinkingTokens,
 * setPermissionMode, streamInput, the listings, stopTask — and how a session ends: return()/close()/asyncDispose
 * answer every call and end the processes, an abortController ends the stream with AbortError. Then sessions:
 * resume, continue, forkSession, sessionId, persistSession, and the sessions API over the transcripts.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AbortError, deleteSession, forkSession, getSessionInfo, getSessionMessages, listSessions, renameSession, type SDKMessage } from 'toolgate/agent-sdk';
import { call, harness, inputStream, resultOf, text, toolResults, type Harness } from './helpers/agent-sdk-session.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const lastUserText = (request: { body: { messages: { role: string; content: unknown }[] } }) => JSON.stringify(request.body.messages.at(-1)!.content);
const bash = (command: string) => call('Bash', { command, description: command });
const until = async (check: () => boolean) => {
  while (!check()) await new Promise((r) => setTimeout(r, 10));
};

describe('streaming input', () => {
  it('each message is a user turn: an init before it, a result after it', async () => {
    h = await harness([text('answer one'), text('answer two')]);
    const input = inputStream();
    const q = h.start(input.stream);
    input.send('one');
    const messages: SDKMessage[] = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === 'result' && messages.filter((x) => x.type === 'result').length === 1) input.send('two');
      if (m.type === 'result' && messages.filter((x) => x.type === 'result').length === 2) input.end();
    }
    expect(messages.map((m) => `${m.type}${'subtype' in m && m.subtype ? `/${m.subtype}` : ''}`)).toEqual(['system/init', 'assistant', 'result/success', 'system/init', 'assistant', 'result/success']);
    expect(messages.filter((m) => m.type === 'result').map((m) => (m as { result: string }).result)).toEqual(['answer one', 'answer two']);
    expect(new Set(messages.map((m) => (m as { session_id: string }).session_id)).size).toBe(1);
    expect(lastUserText(h.server.messageRequests[1]!)).toContain('two');
  });

  it('a message sent while the tools run goes to the model with their results, in the same turn', async () => {
    let toolRunning!: () => void;
    const running = new Promise<void>((r) => (toolRunning = r));
    h = await harness([
      { content: [...bash('sleep 0.5; echo slept').content!, { type: 'wait', until: () => (toolRunning(), true) }] },
      text('saw both'),
    ]);
    const input = inputStream();
    const q = h.start(input.stream, { allowedTools: ['Bash'] });
    input.send('first');
    void running.then(() => input.send('also this please'));
    const messages: SDKMessage[] = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === 'result') input.end();
    }
    expect(messages.filter((m) => m.type === 'result')).toHaveLength(1);
    const second = lastUserText(h.server.messageRequests[1]!);
    expect(second).toContain('slept');
    expect(second).toContain('also this please');
  });
});

describe('control while a session runs', () => {
  it('interrupt() ends the running turn (its calls answered); the session takes the next message', async () => {
    h = await harness([bash('echo waiting; sleep 20'), text('second turn')]);
    const input = inputStream();
    const q = h.start(input.stream, { allowedTools: ['Bash'] });
    input.send('go');
    const messages: SDKMessage[] = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === 'assistant' && m.message.content[0]?.type === 'tool_use') setTimeout(() => void q.interrupt(), 200);
      if (m.type === 'result' && messages.filter((x) => x.type === 'result').length === 1) input.send('next');
      if (m.type === 'result' && messages.filter((x) => x.type === 'result').length === 2) input.end();
    }
    const results = messages.filter((m) => m.type === 'result');
    expect(results[0]).toMatchObject({ subtype: 'error_during_execution', terminal_reason: 'aborted_tools' });
    expect(results[1]).toMatchObject({ subtype: 'success', result: 'second turn' });
    expect(toolResults(messages)).toHaveLength(1);
  });

  it('setModel and setMaxThinkingTokens change the next request', async () => {
    h = await harness([text('one'), text('two')]);
    const input = inputStream();
    const q = h.start(input.stream);
    input.send('one');
    for await (const m of q) {
      if (m.type === 'result' && m.subtype === 'success' && m.result === 'one') {
        await q.setModel('claude-haiku-4-5');
        await q.setMaxThinkingTokens(4096);
        input.send('two');
      } else if (m.type === 'result') input.end();
    }
    expect(h.server.messageRequests.map((r) => r.body.model)).toEqual(['claude-sonnet-4-6', 'claude-haiku-4-5']);
    expect(h.server.messageRequests[1]!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 4096 });
  });

  it('setPermissionMode changes what the next call may do; bypass needs the opt-in', async () => {
    h = await harness([(r) => call('Write', { file_path: path.join(h!.dir, 'x.txt'), content: String(r.turn) }), text('ok')]);
    const q = h.start('write');
    await expect(q.setPermissionMode('bypassPermissions')).rejects.toThrow(/allowDangerouslySkipPermissions/);
    await q.setPermissionMode('acceptEdits');
    const messages: SDKMessage[] = [];
    for await (const m of q) messages.push(m);
    expect(existsSync(path.join(h.dir, 'x.txt'))).toBe(true);
    expect((messages[0] as { permissionMode: string }).permissionMode).toBe('acceptEdits');
  });

  it('streamInput adds messages to a streaming session', async () => {
    h = await harness([text('one'), text('two')]);
    const input = inputStream();
    const q = h.start(input.stream);
    input.send('one');
    const results: string[] = [];
    for await (const m of q) {
      if (m.type !== 'result') continue;
      results.push((m as { result: string }).result);
      if (results.length === 1) {
        void q.streamInput((async function* () { yield { type: 'user' as const, message: { role: 'user' as const, content: 'two' }, parent_tool_use_id: null }; })());
      } else input.end();
    }
    expect(results).toEqual(['one', 'two']);
  });

  it('lists its commands, agents and models', async () => {
    h = await harness([text('ok')]);
    mkdirSync(path.join(h.dir, '.claude', 'commands'), { recursive: true });
    writeFileSync(path.join(h.dir, '.claude', 'commands', 'deploy.md'), '---\ndescription: Ships it\nargument-hint: <env>\n---\nDeploy $ARGUMENTS\n');
    const q = h.start('x', { settingSources: ['project'], agents: { reviewer: { description: 'Reviews', prompt: 'Review.' } } });
    expect(await q.supportedCommands()).toContainEqual({ name: 'deploy', description: 'Ships it', argumentHint: '<env>' });
    expect((await q.supportedAgents()).map((a) => a.name)).toEqual(expect.arrayContaining(['general-purpose', 'reviewer']));
    expect((await q.supportedModels())[0]).toMatchObject({ value: 'default' });
    await q.return();
  });

  it('stopTask stops a background command', async () => {
    h = await harness([call('Bash', { command: 'sleep 30', description: 'bg', run_in_background: true }), text('started')]);
    const q = h.start('bg', { allowedTools: ['Bash'] });
    let taskId: string | undefined;
    const messages: SDKMessage[] = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === 'user' && m.tool_use_result !== undefined) taskId = (m.tool_use_result as { backgroundTaskId?: string; taskId?: string }).backgroundTaskId ?? (m.tool_use_result as { taskId?: string }).taskId;
      if (m.type === 'result') {
        expect(taskId).toBeDefined();
        await q.stopTask(taskId!);
      }
    }
    await expect(q.stopTask('no-such-task')).rejects.toThrow();
    // The session waited for its background command; stopped, it is reported, and with no news there is no new turn.
    expect(messages.find((m) => m.type === 'system' && m.subtype === 'task_notification')).toMatchObject({ task_id: taskId, status: 'stopped' });
    expect(messages.filter((m) => m.type === 'result')).toHaveLength(1);
  });
});

describe('ending a session', () => {
  it('return() during a tool call: the call is answered, its process ended, the runtime disposed', async () => {
    h = await harness([bash('echo $$ > pid; sleep 30'), text('never')]);
    const q = h.start('run', { permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true });
    const pidFile = path.join(h.dir, 'pid');
    for await (const m of q) {
      if (m.type !== 'assistant') continue;
      await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
      break; // leaving the loop calls return(), which resolves once the session has ended
    }
    const pid = Number(readFileSync(pidFile, 'utf8'));
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(alive()).toBe(false);
    expect(h.server.messageRequests).toHaveLength(1);
  });

  it('close() ends it too; await using disposes it', async () => {
    h = await harness([bash('echo waiting; sleep 30'), text('never')]);
    const q = h.start('run', { allowedTools: ['Bash'] });
    await q.next();
    q.close();
    const rest: SDKMessage[] = [];
    for await (const m of q) rest.push(m);
    expect(rest.some((m) => m.type === 'result' && m.subtype === 'success')).toBe(false);
    {
      await using disposable = h.start('again');
      await disposable.next();
    }
  });

  it('an abortController ends the stream with AbortError and no result', async () => {
    h = await harness([bash('echo waiting; sleep 30'), text('never')]);
    const controller = new AbortController();
    const seen: SDKMessage[] = [];
    const q = h.start('run', { allowedTools: ['Bash'], abortController: controller });
    await expect(
      (async () => {
        for await (const m of q) {
          seen.push(m);
          if (m.type === 'assistant') setTimeout(() => controller.abort(), 100);
        }
      })(),
    ).rejects.toBeInstanceOf(AbortError);
    expect(seen.some((m) => m.type === 'result')).toBe(false);
  });
});

describe('sessions', () => {
  it('resume keeps the session id and the conversation; forkSession gives a new id; continue takes the newest', async () => {
    h = await harness([text('first answer'), text('resumed'), text('forked'), text('continued')]);
    const first = await h.run('remember 42');
    const id = (first.messages[0] as { session_id: string }).session_id;
    const resumed = await h.run('what was it?', { resume: id });
    expect((resumed.messages[0] as { session_id: string }).session_id).toBe(id);
    expect(JSON.stringify(h.server.messageRequests[1]!.body.messages)).toContain('remember 42');
    const forked = await h.run('and now?', { resume: id, forkSession: true });
    const forkId = (forked.messages[0] as { session_id: string }).session_id;
    expect(forkId).not.toBe(id);
    expect(JSON.stringify(h.server.messageRequests[2]!.body.messages)).toContain('first answer');
    const continued = await h.run('go on', { continue: true });
    expect((continued.messages[0] as { session_id: string }).session_id).toBe(forkId);
  });

  it('sessionId names a new session; persistSession: false leaves no transcript', async () => {
    h = await harness([text('a'), text('b')]);
    const sessionId = '11111111-2222-4333-8444-555555555555';
    await h.run('x', { sessionId });
    expect(await getSessionInfo(sessionId, { env: h.env })).toMatchObject({ sessionId, cwd: h.dir, firstPrompt: 'x' });
    const ephemeral = await h.run('y', { persistSession: false });
    const ephemeralId = (ephemeral.messages[0] as { session_id: string }).session_id;
    expect(await getSessionInfo(ephemeralId, { env: h.env })).toBeUndefined();
  });

  it('listSessions, getSessionMessages, renameSession, forkSession up to a message, deleteSession', async () => {
    h = await harness([text('one'), text('two')]);
    const a = (await h.run('first session')).messages[0] as { session_id: string };
    const b = (await h.run('second session')).messages[0] as { session_id: string };
    const list = await listSessions({ dir: h.dir, env: h.env });
    expect(list.map((s) => s.sessionId).sort()).toEqual([a.session_id, b.session_id].sort());
    expect(await listSessions({ dir: '/somewhere/else', env: h.env })).toEqual([]);
    const messages = await getSessionMessages(a.session_id, { env: h.env });
    expect(messages.map((m) => m.type)).toEqual(['user', 'assistant']);
    expect((await getSessionMessages(a.session_id, { env: h.env }))[0]!.uuid).toBe(messages[0]!.uuid);
    await renameSession(a.session_id, 'Renamed', { env: h.env });
    expect((await getSessionInfo(a.session_id, { env: h.env }))?.summary).toBe('Renamed');
    const fork = await forkSession(a.session_id, { env: h.env, upToMessageId: messages[0]!.uuid });
    expect((await getSessionMessages(fork.sessionId, { env: h.env })).map((m) => m.type)).toEqual(['user']);
    expect((await getSessionInfo(fork.sessionId, { env: h.env }))?.summary).toBe('Renamed (fork)');
    await deleteSession(a.session_id, { env: h.env });
    expect(await getSessionInfo(a.session_id, { env: h.env })).toBeUndefined();
    await expect(deleteSession(a.session_id, { env: h.env })).rejects.toThrow(/no session/);
    await expect(renameSession('../escape', 'x', { env: h.env })).rejects.toThrow(/no session/);
  });

  it('options.title names a new session', async () => {
    h = await harness([text('a')]);
    const id = ((await h.run('x', { title: 'My title' })).messages[0] as { session_id: string }).session_id;
    expect((await getSessionInfo(id, { env: h.env }))?.customTitle).toBe('My title');
    expect(resultOf((await h.run('y', { resume: id })).messages).session_id).toBe(id);
  });
});
