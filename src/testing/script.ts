/**
 * The vocabulary of a scripted model: a script is a list of turns, one per (successful) request, and each turn says
 * what the model "streams" back — blocks, pauses, the stop reason, the usage — and how the first attempts fail.
 * Everything except functions (`until`, a turn computed from the request) can come from a JSON file.
 */
import { readFileSync } from 'node:fs';

/** One request as the server received it. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body (`undefined` when it was not JSON). */
  readonly body: any;
  readonly rawBody: string;
  /** 0-based index of the turn this request was matched to (`-1`: none left). */
  readonly turn: number;
  /** 0-based attempt number for that turn (errors consume attempts). */
  readonly attempt: number;
}

export type ScriptedUsage = Partial<{
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}>;

/** How text-like content is cut into deltas: a number of roughly equal chunks, or the chunks themselves. */
export type Chunking = number | readonly string[];

export type ScriptedBlock =
  | { readonly type: 'text'; readonly text: string; readonly chunks?: Chunking }
  | { readonly type: 'thinking'; readonly thinking: string; readonly signature?: string; readonly chunks?: Chunking }
  | { readonly type: 'redacted_thinking'; readonly data: string }
  | {
      readonly type: 'tool_use';
      readonly name: string;
      /** Default: `toolu_<turn>_<n>` (unique within the server). */
      readonly id?: string;
      /** Sent as JSON through `input_json_delta` chunks. */
      readonly input?: unknown;
      /** Sent verbatim instead of `input` (use it for deliberately invalid JSON). */
      readonly rawInput?: string;
      readonly chunks?: Chunking;
    }
  /**
   * The connection is cut here and the turn counts as served (unlike an `errors` entry, which makes the next
   * attempt replay the turn): the next request gets the next turn.
   */
  | { readonly type: 'disconnect' }
  /** Nothing is sent for `ms` milliseconds. */
  | { readonly type: 'pause'; readonly ms: number }
  /**
   * The stream holds until `until()` returns something truthy (polled every `pollMs`, default 5), e.g. until a tool's
   * side effect exists — a way to prove that a tool started before the message ended without timing anything.
   * After `timeoutMs` (default 10,000) the stream goes on anyway. Programmatic scripts only.
   */
  | { readonly type: 'wait'; readonly until: () => unknown; readonly pollMs?: number; readonly timeoutMs?: number };

/** How one attempt fails instead of serving the turn. */
export type ScriptedError =
  /** An HTTP error with Anthropic's error body; `retryAfter` (seconds) becomes the `retry-after` header. */
  | { readonly status: number; readonly errorType?: string; readonly message?: string; readonly retryAfter?: number }
  /** The connection is cut: before the response (`afterBlocks` absent) or after that many content blocks were sent. */
  | { readonly drop: true; readonly afterBlocks?: number }
  /** An `event: error` in the middle of the stream after `afterBlocks` content blocks, as the API sends on overload. */
  | { readonly streamError: string; readonly message?: string; readonly afterBlocks?: number };

export interface ScriptedResponse {
  readonly content?: readonly ScriptedBlock[];
  /** Default: `tool_use` when a tool_use block is present, else `end_turn`. Any string is sent as is. */
  readonly stopReason?: string;
  readonly stopSequence?: string | null;
  /** Default: estimated from the request and the content (4 characters a token). */
  readonly usage?: ScriptedUsage;
  /** Default: the request's model. */
  readonly model?: string;
  /** Attempt `i` (0-based) fails with `errors[i]`; the attempt after the last error serves the turn. */
  readonly errors?: readonly ScriptedError[];
  /** Milliseconds between deltas inside this turn (default 0: sent as fast as possible, but as separate writes). */
  readonly chunkDelayMs?: number;
}

export interface TurnContext {
  /** Every request so far, this one last. */
  readonly requests: readonly RecordedRequest[];
  readonly turn: number;
}

/** A turn: a fixed response, or one computed from the request (react to tool results). */
export type ScriptedTurn = ScriptedResponse | ((request: RecordedRequest, context: TurnContext) => ScriptedResponse | Promise<ScriptedResponse>);

export interface Script {
  readonly turns: readonly ScriptedTurn[];
}

/** Reads a script from a JSON file: `{ "turns": [...] }` or a bare array of turns. */
export function loadScript(file: string): Script {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read script ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseScript(parsed, file);
}

/** Checks the shape of a script that came from JSON, with a message naming the bad turn or block. */
export function parseScript(value: unknown, origin = 'script'): Script {
  const turns = Array.isArray(value) ? value : (value as { turns?: unknown } | null)?.turns;
  if (!Array.isArray(turns)) throw new Error(`${origin}: expected an array of turns or { "turns": [...] }`);
  turns.forEach((turn, i) => {
    if (typeof turn !== 'object' || turn === null) throw new Error(`${origin}: turns[${i}] is not an object`);
    const content = (turn as { content?: unknown }).content;
    if (content !== undefined && !Array.isArray(content)) throw new Error(`${origin}: turns[${i}].content is not an array`);
    (content ?? []).forEach((block: unknown, j: number) => {
      const type = (block as { type?: unknown } | null)?.type;
      if (!['text', 'thinking', 'redacted_thinking', 'tool_use', 'pause', 'disconnect'].includes(type as string)) {
        throw new Error(`${origin}: turns[${i}].content[${j}] has unknown type ${JSON.stringify(type)}`);
      }
    });
  });
  return { turns: turns as ScriptedTurn[] };
}
