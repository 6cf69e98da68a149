/**
 * Whether a hover may quote a file the session may not read through what the server inferred (docs/security.md §5):
 * a hover on `copy` in `export const copy = TOKEN` shows TOKEN's literal type, read by the server from the file
 * TOKEN comes from — the definition of `copy` is in an allowed file, so checking where the symbol is defined is not
 * enough. Here the files the hover can draw on are followed: the hovered file and the symbol's definition files,
 * then, breadth first, every file their imports resolve to — resolved by the server itself (a definition request on
 * each import specifier), so the project's own module resolution (paths, aliases, Python packages) is the one used.
 * One file on the way that the session may not read withholds the hover; so does a closure larger than the bound
 * (fail closed). Installed library code (the server's own lib files, packages, a standard library) is not followed.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { DocumentText } from './manager.js';
import { uriToPath } from './format.js';
import type { ChosenServer } from './servers.js';

/** Files followed for one hover; a larger closure withholds the hover. */
export const MAX_HOVER_CLOSURE = 200;

export interface Position {
  readonly line: number;
  readonly character: number;
}

export interface HoverGuardDeps {
  /** Whether an answer may draw on `file` (bound.ts's `answerFilter`). */
  readonly keep: (file: string) => boolean;
  /** The language of `file` for this server, or undefined when the server does not handle it (not followed). */
  readonly languageOf: (file: string) => string | undefined;
  /** Library files (bound.ts's `libraryFilter`: installed code, never a denied file): allowed, not followed. */
  readonly isLibrary: (file: string) => boolean;
  /** Asks the server where each position of `file` (an import specifier) leads. */
  readonly definitionsAt: (file: string, languageId: string, document: DocumentText, positions: readonly Position[]) => Promise<readonly unknown[]>;
}

/** A request to the server the answer came from (`target`: about another file, opened in it first). */
export type GuardRequest = <T>(method: string, params: (uri: string) => unknown, target?: { file: string; document: DocumentText; languageId: string }) => Promise<T>;

/** The guard's questions, put to the server `located` through `req`. */
export function guardDeps(located: { server: ChosenServer; executable: string }, keep: (file: string) => boolean, isLibrary: (file: string) => boolean, req: GuardRequest): HoverGuardDeps {
  const languages = Object.entries(located.server.config.extensionToLanguage).map(([ext, id]) => [ext.toLowerCase(), id] as const);
  return {
    keep,
    isLibrary,
    languageOf: (f) => languages.find(([ext]) => ext === path.extname(f).toLowerCase())?.[1],
    definitionsAt: (f, languageId, document, positions) =>
      Promise.all(positions.map((position) => req<unknown>('textDocument/definition', (uri) => ({ textDocument: { uri }, position }), { file: f, document, languageId }))),
  };
}

/** True when the hover must be withheld. */
export async function hoverDrawsOnHidden(start: readonly string[], deps: HoverGuardDeps, limit = MAX_HOVER_CLOSURE): Promise<boolean> {
  const seen = new Set<string>();
  const queue = [...start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (deps.isLibrary(file)) continue;
    if (!deps.keep(file)) return true;
    if (seen.size > limit) return true;
    const languageId = deps.languageOf(file);
    if (languageId === undefined) continue;
    const document = await documentOf(file);
    if (document === undefined) continue;
    const positions = importSpecifiers(document.text, languageId);
    if (positions.length === 0) continue;
    for (const answer of await deps.definitionsAt(file, languageId, document, positions)) {
      for (const target of locationFiles(answer)) if (!seen.has(target)) queue.push(target);
    }
  }
  return false;
}

async function documentOf(file: string): Promise<DocumentText | undefined> {
  try {
    const stats = await stat(file);
    if (!stats.isFile()) return undefined;
    return { text: await readFile(file, 'utf8'), mtimeMs: stats.mtimeMs, size: stats.size };
  } catch {
    return undefined;
  }
}

function locationFiles(answer: unknown): string[] {
  const list = Array.isArray(answer) ? answer : answer ? [answer] : [];
  const out: string[] = [];
  for (const loc of list as { uri?: unknown; targetUri?: unknown }[]) {
    const uri = typeof loc?.targetUri === 'string' ? loc.targetUri : typeof loc?.uri === 'string' ? loc.uri : undefined;
    const file = uri !== undefined ? uriToPath(uri) : undefined;
    if (file !== undefined) out.push(path.resolve(file));
  }
  return out;
}

const SCRIPT_SPECIFIERS = [/\bfrom\s*(['"])([^'"\n]+)\1/g, /\bimport\s*(['"])([^'"\n]+)\1/g, /\b(?:import|require)\s*\(\s*(['"])([^'"\n]+)\1/g];
const PYTHON_FROM = /^[ \t]*from[ \t]+([.\w]+)[ \t]+import\b/gm;
const PYTHON_IMPORT = /^[ \t]*import[ \t]+([\w.]+(?:[ \t]*,[ \t]*[\w.]+)*)/gm;

/** Where the import specifiers of a source file are (0-based LSP positions inside each module name). */
export function importSpecifiers(text: string, languageId: string): Position[] {
  const offsets: number[] = [];
  if (languageId === 'python') {
    for (const m of text.matchAll(PYTHON_FROM)) offsets.push(lastSegment(m.index + m[0].indexOf(m[1]!, 4), m[1]!));
    for (const m of text.matchAll(PYTHON_IMPORT)) {
      let at = m.index + m[0].indexOf(m[1]!, 6);
      for (const part of m[1]!.split(',')) {
        const name = part.trim();
        offsets.push(lastSegment(at + part.indexOf(name), name));
        at += part.length + 1;
      }
    }
  } else {
    for (const pattern of SCRIPT_SPECIFIERS) for (const m of text.matchAll(pattern)) offsets.push(m.index + m[0].lastIndexOf(m[2]!));
  }
  return [...new Set(offsets)].sort((a, b) => a - b).map((offset) => positionOf(text, offset));
}

/** A dotted module name's last part (`a.b.c` → `c`; `..mod` → `mod`): where a server resolves the whole module. */
function lastSegment(start: number, name: string): number {
  const dot = name.lastIndexOf('.');
  return dot >= 0 && dot < name.length - 1 ? start + dot + 1 : start + (name.match(/^\.*/)?.[0].length ?? 0);
}

function positionOf(text: string, offset: number): Position {
  let line = 0;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, character: offset - lineStart };
}
