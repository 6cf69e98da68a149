/**
 * What a sub-agent did, kept from its events: its tool calls in order (with how each ended — done, failed, or denied
 * with the message that names the rule that would allow it) and its words between them. Two readers:
 * - the parent model: `transcript()` is the condensed transcript that reaches it as the Agent call's `newMessages`
 *   (a foreground agent) or in the end-of-task notification (a background one). Tool results are left out — the
 *   child read them so that the parent does not have to, and they can be huge — and it is bounded: the latest entries
 *   are kept, the rest counted;
 * - a background agent's output file: one line per event (`file`), which TaskOutput and Read show as its progress.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { SubagentEvent } from './subagent-runner.js';

/** How long the condensed transcript may be (characters). */
export const TRANSCRIPT_MAX_CHARS = 4_000;
const TEXT_CHARS = 300;
const SUMMARY_CHARS = 120;

export interface LoggedCall {
  readonly id: string;
  readonly name: string;
  readonly summary: string;
  status: 'running' | 'done' | 'error' | 'denied';
  /** The permission engine's message when it was denied (it names the rule that would allow the call). */
  denial?: string;
}

type Entry = { readonly kind: 'call'; readonly call: LoggedCall } | { readonly kind: 'text'; readonly text: string };

export class AgentLog {
  readonly #entries: Entry[] = [];
  readonly #calls = new Map<string, LoggedCall>();
  readonly #file: string | undefined;
  #fileBroken = false;

  /** `file`: where the progress lines go (created with its folder); absent, nothing is written. */
  constructor(file?: string) {
    this.#file = file;
    if (file !== undefined) {
      try {
        mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
        appendFileSync(file, '', { mode: 0o600 });
      } catch {
        this.#fileBroken = true;
      }
    }
  }

  record(event: SubagentEvent): void {
    switch (event.type) {
      case 'tool_start': {
        const call: LoggedCall = { id: event.toolUseId, name: event.toolName, summary: oneLine(event.summary, SUMMARY_CHARS), status: 'running' };
        this.#calls.set(call.id, call);
        this.#entries.push({ kind: 'call', call });
        this.write(`[tool] ${describe(call)}`);
        return;
      }
      case 'tool_end': {
        const call = this.#calls.get(event.toolUseId);
        if (!call) return;
        call.status = event.denied !== undefined ? 'denied' : event.isError ? 'error' : 'done';
        if (event.denied !== undefined) call.denial = event.denied;
        this.write(`[${call.status}] ${describe(call)}${call.denial !== undefined ? ` — ${call.denial}` : ''}`);
        return;
      }
      case 'text': {
        const text = event.text.trim();
        if (text === '') return;
        this.#entries.push({ kind: 'text', text });
        this.write(`[text] ${text}`);
        return;
      }
      default:
        return;
    }
  }

  /** Appends a line to the output file (a best effort: a full disk must not stop the agent). */
  write(line: string): void {
    if (this.#file === undefined || this.#fileBroken) return;
    try {
      appendFileSync(this.#file, `${line}\n`);
    } catch {
      this.#fileBroken = true;
    }
  }

  get toolUseCount(): number {
    return this.#calls.size;
  }

  /** The calls the permission engine denied, in order. */
  get denials(): readonly LoggedCall[] {
    return [...this.#calls.values()].filter((c) => c.status === 'denied');
  }

  /**
   * The condensed transcript: one line per call (`- Name(summary) → done`) and per piece of text (`> …`), the child's
   * final text left out (the report carries it). Empty when there is nothing besides the final text.
   */
  transcript(finalText: string, maxChars = TRANSCRIPT_MAX_CHARS): string {
    const entries = [...this.#entries];
    const last = entries.at(-1);
    if (last?.kind === 'text' && last.text === finalText.trim()) entries.pop();
    const lines = entries.map((e) =>
      e.kind === 'call' ? `- ${describe(e.call)} → ${e.call.status}${e.call.denial !== undefined ? `: ${oneLine(e.call.denial, 400)}` : ''}` : `> ${oneLine(e.text, TEXT_CHARS)}`,
    );
    // The latest entries matter most (what the child did last, what it concluded from): earlier ones are counted.
    const kept: string[] = [];
    let size = 0;
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = lines[i]!;
      if (size + line.length + 1 > maxChars) break;
      kept.unshift(line);
      size += line.length + 1;
    }
    const dropped = lines.length - kept.length;
    return [...(dropped > 0 ? [`… ${dropped} earlier ${dropped === 1 ? 'entry' : 'entries'} left out`] : []), ...kept].join('\n');
  }
}

function describe(call: LoggedCall): string {
  return call.summary !== '' ? `${call.name}(${call.summary})` : call.name;
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
