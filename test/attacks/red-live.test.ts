/**
 * Red team of docs/security.md §12 (settings changed while a session runs): the Agent SDK `Query` methods on a real
 * session against the scripted model server, real files and real bash.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { Options, Query, SDKMessage } from 'toolgate/agent-sdk';
import type { ScriptedResponse } from '../../src/testing/index.js';
import { call, harness, inputStream, text, toolResults, type Harness } from '../helpers/agent-sdk-session.js';

let h: Harness | undefined;
let script: ScriptedResponse[] = [];
const scripted = () => harness(Array.from({ length: 30 }, () => () => script.shift() ?? text('(no answer left)')));
afterEach(async () => {
  await h?.close();
  h = undefined;
  script = [];
});

/** A streaming session: `before` acts on it, then the prompt is sent and every message collected. */
async function session(prompt: string, options: Options, before: (q: Query) => Promise<void>): Promise<SDKMessage[]> {
  const input = inputStream();
  const q = h!.start(input.stream, options);
  const messages: SDKMessage[] = [];
  const drained = (async () => {
    for await (const m of q) {
      messages.push(m);
      if (m.type === 'result') input.end();
    }
  })();
  await before(q);
  input.send(prompt);
  await drained;
  return messages;
}

const bash = (script: string, cwd: string) => execFileSync('bash', ['-c', script], { cwd, encoding: 'utf8' });

describe('seedReadState: a file replaced since the observed Read is not seeded (security.md §12, red team)', () => {
  // The program saw the model read version "mine" (mtime T). Later something puts another version there and sets its
  // mtime back (`cp -p`/`rsync -a`/`tar x` of a copy, or the model's own `touch -r`): the mtime check alone saw
  // "not past T" and seeded it, so a Write replaced content nobody had read. The inode's ctime cannot be set back.
  for (const how of [
    { name: 'the same mtime (touch -r)', restamp: 'touch -m -r ../seen.ref a.txt' },
    { name: 'an older mtime (cp -p of an older copy)', restamp: 'touch -m -d @1000000000 ../old.txt && cp -p ../old.txt a.txt' },
  ]) {
    it(`a file rewritten and given ${how.name} is not seeded: the Write asks for a Read and the other version stays`, async () => {
      h = await scripted();
      const work = path.join(h.dir, 'w');
      const file = path.join(work, 'a.txt');
      bash(`mkdir w && printf 'mine\\n' > w/a.txt && cp -p w/a.txt seen.ref && printf 'theirs\\n' > old.txt`, h.dir);
      const seen = Math.floor(statSync(file).mtimeMs);
      // Past the seed's allowance for a file renamed into place just after its write (an atomic writer).
      await sleep(1_500);
      bash(`printf 'theirs\\n' > a.txt && ${how.restamp}`, work);
      expect(Math.floor(statSync(file).mtimeMs)).toBeLessThanOrEqual(seen);
      script.push(call('Write', { file_path: file, content: 'model\n' }), text('done'));
      const messages = await session('write', { permissionMode: 'acceptEdits', cwd: work }, (q) => q.seedReadState(file, seen));
      expect(toolResults(messages)[0]).toMatch(/has not been read yet/);
      expect(readFileSync(file, 'utf8')).toBe('theirs\n');
    });
  }

  it('held: the version that was read, untouched since, is seeded (the Write goes through)', async () => {
    h = await scripted();
    const file = path.join(h.dir, 'a.txt');
    writeFileSync(file, 'mine\n');
    const seen = Math.floor(statSync(file).mtimeMs);
    await sleep(1_500);
    script.push(call('Write', { file_path: file, content: 'model\n' }), text('done'));
    const messages = await session('write', { permissionMode: 'acceptEdits' }, (q) => q.seedReadState(file, seen));
    expect(toolResults(messages)[0]).not.toMatch(/not been read/);
    expect(readFileSync(file, 'utf8')).toBe('model\n');
  });
});
