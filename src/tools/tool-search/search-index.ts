/**
 * The ToolSearch index: each deferred tool's name split into words (`mcp__slack__send_message` → mcp, slack, send,
 * message; `NotebookEdit` → notebook, edit), its `searchHint` and its description, tokenised once per pool. A query
 * then costs a few Set lookups per tool: 1,000 deferred tools answer in well under a millisecond.
 */
import type { AnyTool, Tools } from '../../tool/tool.js';
import { isDeferredTool, TOOL_SEARCH_TOOL_NAME } from '../../tool/api-format.js';

export interface IndexedTool {
  readonly tool: AnyTool;
  readonly name: string;
  readonly lowerName: string;
}

/**
 * Names and hints joined into one lower-case text each (one `indexOf` walk finds every tool containing a term), and
 * postings of whole words (name, hint, description) with their weights.
 */
export interface ToolSearchIndex {
  readonly tools: readonly IndexedTool[];
  readonly byLowerName: ReadonlyMap<string, IndexedTool>;
  readonly namesText: string;
  readonly nameStarts: Int32Array;
  readonly hintsText: string;
  readonly hintStarts: Int32Array;
  /** word → [toolIndex, weight, toolIndex, weight, …] */
  readonly postings: ReadonlyMap<string, number[]>;
}

// Weights: a term in the name counts most (a whole name word more than a fragment), then the hint, then the description.
const W_NAME_SUBSTRING = 6;
const W_NAME_WORD_EXTRA = 4;
const W_HINT_SUBSTRING = 3;
const W_HINT_WORD_EXTRA = 2;
const W_DESCRIPTION_WORD = 2;

const STOP_WORDS = new Set(['a', 'an', 'the', 'to', 'of', 'and', 'or', 'for', 'in', 'on', 'with', 'by', 'is', 'it', 'mcp']);

/** Words of a name: split at `_`, `-`, `.`, spaces and camelCase humps; lower case. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

export function textWords(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1 && !STOP_WORDS.has(w));
}

const cache = new WeakMap<Tools, Promise<ToolSearchIndex>>();

/** The index of a pool's deferred tools, built once per pool array (pools are replaced, never mutated). */
export function getToolSearchIndex(tools: Tools, describe: (tool: AnyTool) => Promise<string>): Promise<ToolSearchIndex> {
  let index = cache.get(tools);
  if (!index) {
    index = buildIndex(tools, describe);
    cache.set(tools, index);
    index.catch(() => cache.delete(tools));
  }
  return index;
}

async function buildIndex(tools: Tools, describe: (tool: AnyTool) => Promise<string>): Promise<ToolSearchIndex> {
  const deferred = tools.filter((t) => t.name !== TOOL_SEARCH_TOOL_NAME && isDeferredTool(t, tools));
  const descriptions = await Promise.all(
    deferred.map(async (tool) => {
      try {
        return await describe(tool);
      } catch {
        return ''; // still findable by name and hint
      }
    }),
  );
  const postings = new Map<string, number[]>();
  const post = (word: string, index: number, weight: number) => {
    let list = postings.get(word);
    if (!list) postings.set(word, (list = []));
    list.push(index, weight);
  };
  const nameStarts = new Int32Array(deferred.length + 1);
  const hintStarts = new Int32Array(deferred.length + 1);
  let namesText = '';
  let hintsText = '';
  const indexed: IndexedTool[] = deferred.map((tool, i) => {
    const lowerName = tool.name.toLowerCase();
    const hint = (tool.searchHint ?? '').toLowerCase();
    nameStarts[i] = namesText.length;
    namesText += `${lowerName}\n`;
    hintStarts[i] = hintsText.length;
    hintsText += `${hint}\n`;
    for (const w of new Set(nameWords(tool.mcpInfo ? `${tool.mcpInfo.serverName} ${tool.mcpInfo.toolName}` : tool.name))) post(w, i, W_NAME_WORD_EXTRA);
    for (const w of new Set(textWords(hint))) post(w, i, W_HINT_WORD_EXTRA);
    for (const w of new Set(textWords(descriptions[i]!.slice(0, 2000)))) post(w, i, W_DESCRIPTION_WORD);
    return { tool, name: tool.name, lowerName };
  });
  nameStarts[deferred.length] = namesText.length;
  hintStarts[deferred.length] = hintsText.length;
  return { tools: indexed, byLowerName: new Map(indexed.map((t) => [t.lowerName, t])), namesText, nameStarts, hintsText, hintStarts, postings };
}

/** Calls `hit(toolIndex)` once for every tool whose segment of `text` contains `term`. */
function forEachContaining(text: string, starts: Int32Array, term: string, hit: (index: number) => void): void {
  let pos = text.indexOf(term);
  while (pos >= 0) {
    // The segment holding `pos`: the last start ≤ pos.
    let lo = 0;
    let hi = starts.length - 2;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= pos) lo = mid;
      else hi = mid - 1;
    }
    hit(lo);
    pos = text.indexOf(term, starts[lo + 1]!);
  }
}

export interface ParsedQuery {
  readonly select?: readonly string[];
  readonly required: readonly string[];
  readonly terms: readonly string[];
}

export function parseQuery(query: string): ParsedQuery {
  const trimmed = query.trim();
  const select = /^select:(.*)$/is.exec(trimmed);
  if (select) {
    return { select: select[1]!.split(',').map((s) => s.trim()).filter((s) => s.length > 0), required: [], terms: [] };
  }
  const required: string[] = [];
  const terms: string[] = [];
  for (const raw of trimmed.split(/\s+/)) {
    if (raw.length === 0) continue;
    if (raw.startsWith('+') && raw.length > 1) required.push(raw.slice(1).toLowerCase());
    else terms.push(...textWordsKeepShort(raw));
  }
  return { required, terms };
}

function textWordsKeepShort(raw: string): string[] {
  return raw.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 0 && !STOP_WORDS.has(w));
}

/** Names of the best matches, best first; ties keep pool order (stable results for the same query). */
export function searchIndex(index: ToolSearchIndex, query: ParsedQuery, maxResults: number): string[] {
  if (query.select) {
    const out: string[] = [];
    for (const name of query.select) {
      const hit = index.byLowerName.get(name.toLowerCase());
      if (hit && !out.includes(hit.name)) out.push(hit.name);
    }
    return out;
  }
  const n = index.tools.length;
  let allowed: Uint8Array | undefined;
  if (query.required.length > 0) {
    const counts = new Uint8Array(n);
    for (const req of query.required) forEachContaining(index.namesText, index.nameStarts, req, (i) => counts[i]!++);
    allowed = counts.map((c) => (c === query.required.length ? 1 : 0));
  }
  const scores = new Float64Array(n);
  const touched: number[] = [];
  const add = (i: number, w: number) => {
    if (allowed !== undefined && allowed[i] === 0) return;
    if (scores[i] === 0) touched.push(i);
    scores[i]! += w;
  };
  if (query.terms.length === 0 && allowed !== undefined) {
    // `+slack` alone: every tool whose name has it, in pool order.
    for (let i = 0; i < n; i++) if (allowed[i] === 1) add(i, 1);
  }
  for (const term of query.terms) {
    forEachContaining(index.namesText, index.nameStarts, term, (i) => add(i, W_NAME_SUBSTRING));
    if (term.length > 2) forEachContaining(index.hintsText, index.hintStarts, term, (i) => add(i, W_HINT_SUBSTRING));
    const list = index.postings.get(term);
    if (list) for (let k = 0; k < list.length; k += 2) add(list[k]!, list[k + 1]!);
  }
  // The best k by insertion (k is small): cheaper than sorting every touched tool.
  const k = Math.max(0, maxResults);
  const best: number[] = [];
  const better = (a: number, b: number) => scores[a]! > scores[b]! || (scores[a] === scores[b] && a < b);
  for (const i of touched) {
    if (best.length === k && !better(i, best[k - 1]!)) continue;
    let j = best.length < k ? best.length : k - 1;
    while (j > 0 && better(i, best[j - 1]!)) {
      best[j] = best[j - 1]!;
      j--;
    }
    best[j] = i;
  }
  return best.map((i) => index.tools[i]!.name);
}
