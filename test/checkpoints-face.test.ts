/**
 * File checkpoints from the Agent SDK face (issue 35): `enableFileCheckpointing`, a checkpoint before each user
 * message, `rewindFiles(uuid, { dryRun })` putting back what the real tools changed — Edit, and a Bash `sed -i`, an
 * `rm -r` and a new file — byte for byte, to each earlier message; and `resumeSessionAt`.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { forkSession, getSessionMessages, type SDKMessage, type SDKUserMessage } from 'toolgate/agent-sdk';
import { call, harness, text, type Harness } from './helpers/agent-sdk-session.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function files(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        out[`${path.relative(root, p)}/`] = '';
        walk(p);
      } else out[path.relative(root, p)] = fs.readFileSync(p).toString('base64');
    }
  };
  walk(root);
  return out;
}

/** User messages with uuids, fed by hand. */
function feed() {
  const queue: SDKUserMessage[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  return {
    stream: (async function* () {
      for (;;) {
        while (queue.length > 0) yield queue.shift()!;
        if (ended) return;
        await new Promise<void>((r) => (wake = r));
      }
    })(),
    send(t: string, uuid: string) {
      queue.push({ type: 'user', message: { role: 'user', content: t }, parent_tool_use_id: null, uuid: uuid as SDKUserMessage['uuid'] });
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
  };
}

function project(dir: string): void {
  fs.mkdirSync(path.join(dir, 'src/lib'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'src/main.ts'), 'export const answer = 41;\n');
  fs.writeFileSync(path.join(dir, 'src/lib/util.ts'), 'export const word = "old";\n');
  fs.writeFileSync(path.join(dir, 'notes.md'), 'keep me\n');
}

describe('rewindFiles on the Agent SDK face', () => {
  it('puts back what Edit and Bash (sed -i, rm -r, a new file) changed, to each earlier message, byte-equal', async () => {
    h = await harness([
      call('Read', { file_path: 'src/main.ts' }),
      call('Edit', { file_path: 'src/main.ts', old_string: '41', new_string: '42' }),
      text('edited'),
      call('Bash', { command: "sed -i 's/old/new/' src/lib/util.ts && cp src/lib/util.ts kept.ts && rm -r src/lib && echo fresh > fresh.txt", description: 'shell changes' }),
      text('shell done'),
    ]);
    project(h.dir);
    const before1 = files(h.dir);
    const [u1, u2] = [randomUUID(), randomUUID()];
    const input = feed();
    const q = h.start(input.stream, { enableFileCheckpointing: true, allowedTools: ['Read', 'Edit', 'Bash'], permissionMode: 'acceptEdits' });
    input.send('edit it', u1);
    let results = 0;
    let before2: Record<string, string> | undefined;
    let after: Record<string, string> | undefined;
    const rewinds: unknown[] = [];
    for await (const m of q as AsyncIterable<SDKMessage>) {
      if (m.type === 'user' && process.env.DEBUG_CKPT) console.log(JSON.stringify(m.message.content).slice(0, 600));
      if (m.type !== 'result') continue;
      results++;
      if (results === 1) {
        before2 = files(h.dir);
        input.send('now the shell', u2);
        continue;
      }
      after = files(h.dir);
      const dry = await q.rewindFiles(u2, { dryRun: true });
      rewinds.push(dry);
      expect(files(h.dir)).toEqual(after);
      rewinds.push(await q.rewindFiles(u2));
      expect(files(h.dir)).toEqual(before2);
      rewinds.push(await q.rewindFiles(u1));
      expect(files(h.dir)).toEqual(before1);
      input.end();
    }
    expect(results).toBe(2);
    expect(before2!['src/main.ts']).not.toEqual(before1['src/main.ts']);
    expect(after!['fresh.txt']).toBeDefined();
    const [dry, real] = rewinds as { canRewind: boolean; filesChanged: string[]; added: string[]; deleted: string[]; notRestorable: string[]; skippedLinks?: number }[];
    expect(dry).toMatchObject({ canRewind: true });
    expect(dry!.skippedLinks).toBeUndefined();
    expect(dry!.added.map((f) => path.relative(h!.dir, f)).sort()).toEqual(['fresh.txt', 'kept.ts']);
    expect(dry!.deleted.map((f) => path.relative(h!.dir, f))).toEqual(['src/lib/util.ts']);
    // The command is named as what the rewind cannot undo outside the project.
    expect(real!.notRestorable.some((l) => l.includes('sed -i') && l.includes('not restorable'))).toBe(true);
    expect(real!.skippedLinks).toBe(0);
  });

  it('a message is also named by its transcript id; without enableFileCheckpointing there is nothing to rewind', async () => {
    h = await harness([call('Bash', { command: 'echo changed > notes.md', description: 'x' }), text('done'), text('plain')]);
    project(h.dir);
    const input = feed();
    const q = h.start(input.stream, { enableFileCheckpointing: true, allowedTools: ['Bash'], permissionMode: 'acceptEdits' });
    input.send('change notes', randomUUID());
    let sessionId = '';
    for await (const m of q as AsyncIterable<SDKMessage>) {
      if (m.type !== 'result') continue;
      sessionId = m.session_id;
      const stored = await getSessionMessages(sessionId, { env: h.env });
      const r = await q.rewindFiles(stored[0]!.uuid);
      expect(r.canRewind).toBe(true);
      input.end();
    }
    expect(fs.readFileSync(path.join(h.dir, 'notes.md'), 'utf8')).toBe('keep me\n');

    const off = h.start('hello');
    const offResult = await off.rewindFiles(randomUUID());
    expect(offResult).toEqual({ canRewind: false, error: 'File checkpointing is not enabled for this session' });
    for await (const _ of off) void _;
  });
});

describe('a checkpoint before each call that is not read-only', () => {
  it('rewinds to just before a call inside a turn (by its tool_use id); a read-only call has none', async () => {
    h = await harness([
      call('Bash', { command: 'echo one > notes.md', description: 'first' }),
      call('Read', { file_path: 'notes.md' }),
      call('Bash', { command: 'echo two > notes.md && echo new > made.txt', description: 'second' }),
      text('done'),
    ]);
    project(h.dir);
    const input = feed();
    const q = h.start(input.stream, { enableFileCheckpointing: true, allowedTools: ['Bash', 'Read'], permissionMode: 'acceptEdits' });
    input.send('two shell calls', randomUUID());
    const calls: string[] = [];
    for await (const m of q as AsyncIterable<SDKMessage>) {
      if (m.type === 'assistant') for (const b of m.message.content) if (b.type === 'tool_use') calls.push(b.id);
      if (m.type !== 'result') continue;
      expect(fs.readFileSync(path.join(h.dir, 'notes.md'), 'utf8')).toBe('two\n');
      const [first, read, second] = calls;
      expect(await q.rewindFiles(read!)).toMatchObject({ canRewind: false });
      const r = await q.rewindFiles(second!);
      expect(r.canRewind).toBe(true);
      expect(fs.readFileSync(path.join(h.dir, 'notes.md'), 'utf8')).toBe('one\n');
      expect(fs.existsSync(path.join(h.dir, 'made.txt'))).toBe(false);
      await q.rewindFiles(first!);
      expect(fs.readFileSync(path.join(h.dir, 'notes.md'), 'utf8')).toBe('keep me\n');
      input.end();
    }
    expect(calls).toHaveLength(3);
  });
});

/** Two turns, "first" then "second", in one session; its id. */
async function twoTurns(harnessed: Harness): Promise<string> {
  const input = feed();
  const q = harnessed.start(input.stream);
  input.send('first', randomUUID());
  let id = '';
  let n = 0;
  for await (const m of q as AsyncIterable<SDKMessage>) {
    if (m.type !== 'result') continue;
    id = m.session_id;
    if (++n === 1) input.send('second', randomUUID());
    else input.end();
  }
  return id;
}

describe('resumeSessionAt', () => {
  it('resumes the conversation cut after a message, under a new id; the transcript it was cut from stays whole', async () => {
    h = await harness([text('one'), text('two'), (req) => text(`saw ${req.body.messages.length} messages: ${JSON.stringify(req.body.messages.map((m: { content: unknown }) => m.content)).includes('second') ? 'second' : 'no second'}`)]);
    const id = await twoTurns(h);
    const stored = await getSessionMessages(id, { env: h.env });
    expect(stored).toHaveLength(4);
    const { messages } = await h.run('third', { resume: id, resumeSessionAt: stored[1]!.uuid });
    const result = messages.find((m) => m.type === 'result') as { result: string; session_id: string };
    expect(result.result).toBe('saw 3 messages: no second');
    expect(result.session_id).not.toBe(id);
    expect(await getSessionMessages(id, { env: h.env })).toHaveLength(4);
    expect(() => h!.start('x', { resumeSessionAt: stored[1]!.uuid })).toThrow(/needs options.resume/);
  });

  it('forkSession at a message, then resumed: the next request goes on from the fork (end to end)', async () => {
    h = await harness([text('one'), text('two'), (req) => text(`fork saw ${req.body.messages.length} messages`)]);
    const id = await twoTurns(h);
    const stored = await getSessionMessages(id, { env: h.env });
    const fork = await forkSession(id, { env: h.env, upToMessageId: stored[1]!.uuid });
    const { messages } = await h.run('third', { resume: fork.sessionId });
    const result = messages.find((m) => m.type === 'result') as { result: string; session_id: string };
    expect(result.result).toBe('fork saw 3 messages');
    expect(result.session_id).toBe(fork.sessionId);
    expect(JSON.stringify(h.server.messageRequests.at(-1)!.body.messages)).not.toContain('second');
    expect(await getSessionMessages(id, { env: h.env })).toHaveLength(4);
  });
});
