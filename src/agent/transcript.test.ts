import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { heldTranscripts, isoTimestamp, MAX_HELD_TRANSCRIPTS, readTranscript, transcriptPath, TranscriptWriter } from './transcript.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-transcript-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const at = '2026-01-01T00:00:00.000Z';

describe('TranscriptWriter', () => {
  it('makes the session folder at the first write, held or not, and again when it was removed between sessions', () => {
    const file = transcriptPath(path.join(dir, 'sessions', 's1'));
    const first = new TranscriptWriter(file);
    expect(existsSync(path.dirname(file))).toBe(false); // nothing touched before a write
    first.append({ type: 'session', sessionId: 's1', cwd: dir, model: 'm', at });
    first.hold();
    first.append({ type: 'message', message: { role: 'user', content: 'one' }, at });
    first.close();
    expect(readTranscript(file).messages).toEqual([{ role: 'user', content: 'one' }]);

    rmSync(path.join(dir, 'sessions'), { recursive: true });
    const second = new TranscriptWriter(file);
    second.hold(); // the open finds no folder: it is made, and the file held
    second.append({ type: 'message', message: { role: 'user', content: 'two' }, at });
    second.close();
    expect(readTranscript(file).messages).toEqual([{ role: 'user', content: 'two' }]);
  });

  it('hold() says whether the file is new (the session header is due), and a file that is there is appended to', () => {
    const file = transcriptPath(path.join(dir, 'sessions', 's0'));
    const first = new TranscriptWriter(file);
    expect(first.hold()).toBe(true); // no folder, no file: both made
    expect(first.hold()).toBe(false); // held already
    first.append({ type: 'message', message: { role: 'user', content: 'one' }, at });
    first.close();
    const second = new TranscriptWriter(file);
    expect(second.hold()).toBe(false);
    second.append({ type: 'message', message: { role: 'user', content: 'two' }, at });
    second.close();
    expect(readTranscript(file).messages).toEqual([
      { role: 'user', content: 'one' },
      { role: 'user', content: 'two' },
    ]);
  });

  it('writes every byte of an entry whatever its characters, one line each, while held', () => {
    const file = transcriptPath(path.join(dir, 's2'));
    const writer = new TranscriptWriter(file);
    writer.hold();
    const text = 'héllo — 日本語 🙂 '.repeat(2_000);
    writer.append({ type: 'message', message: { role: 'assistant', content: [{ type: 'text', text }] }, at });
    writer.append({ type: 'result', stopReason: 'end_turn', turns: 1, costUsd: 0, at });
    writer.close();
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines).toHaveLength(3); // two entries and the final newline
    expect(JSON.parse(lines[0]!).message.content[0].text).toBe(text);
    expect(JSON.parse(lines[1]!).type).toBe('result');
  });

  // /proc/self/fd is Linux's: elsewhere the descriptors cannot be counted, and the held count alone says it.
  it('keeps at most MAX_HELD_TRANSCRIPTS files open however many sessions hold theirs; the rest append all the same', () => {
    const fds = () => (existsSync('/proc/self/fd') ? readdirSync('/proc/self/fd').length : heldTranscripts());
    const before = fds();
    const writers = Array.from({ length: MAX_HELD_TRANSCRIPTS + 40 }, (_, i) => new TranscriptWriter(path.join(dir, 'many', `s${i}.jsonl`)));
    try {
      // Every one is new, held or not: its header is due.
      expect(writers.map((w) => w.hold()).every(Boolean)).toBe(true);
      expect(fds() - before).toBeLessThanOrEqual(MAX_HELD_TRANSCRIPTS);
      expect(heldTranscripts()).toBe(MAX_HELD_TRANSCRIPTS);
      // A second hold() of one past the cap still finds its file there: no header twice.
      expect(writers.at(-1)!.hold()).toBe(false);
      for (const [i, w] of writers.entries()) w.append({ type: 'session', sessionId: `s${i}`, cwd: dir, model: 'm', at: isoTimestamp() });
      for (const [i, w] of writers.entries()) expect(readTranscript(w.file).header?.sessionId).toBe(`s${i}`);
    } finally {
      for (const w of writers) w.close();
    }
    expect(heldTranscripts()).toBe(0);
    expect(fds()).toBe(before);
  });

  it('reports a write that cannot happen (the folder is a file) instead of dropping the entry', () => {
    const blocker = path.join(dir, 'blocked');
    const writer = new TranscriptWriter(transcriptPath(path.join(blocker, 'inner')));
    writer.append({ type: 'session', sessionId: 'x', cwd: dir, model: 'm', at }); // makes blocked/inner/
    rmSync(blocker, { recursive: true });
    // A file where the folder should be: not ENOENT, so nothing is made and the error reaches the caller.
    writeFileSync(blocker, '');
    expect(() => writer.append({ type: 'message', message: { role: 'user', content: 'x' }, at })).toThrow();
  });
});

describe('isoTimestamp', () => {
  it('is Date#toISOString of the same instant, across minutes, days, years and the edges of its range', () => {
    const instants = [0, 59_999, 60_000, 1_764_374_399_999, 1_764_374_400_000, Date.UTC(2024, 1, 29, 23, 59, 59, 7), 253_402_300_799_999, 253_402_300_800_000, -1, 1.5];
    for (let t = 1_700_000_000_000; t < 1_700_000_000_000 + 200_000; t += 997) instants.push(t);
    // Spread over the whole range, the same every run.
    for (let i = 0, x = 12345; i < 500; i++) instants.push((x = (x * 48_271) % 2_147_483_647) * 117_999);
    for (const t of instants) expect(isoTimestamp(t)).toBe(new Date(t).toISOString());
  });
});
