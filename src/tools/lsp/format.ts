/**
 * A language server's answers as the model reads them: `file:line:column` (1-based, relative to the project when
 * inside it), one per line, with the symbol's name and kind where there is one; hover text as the server gave it.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface Position {
  readonly line: number;
  readonly character: number;
}
interface Range {
  readonly start: Position;
  readonly end: Position;
}
interface Location {
  readonly uri: string;
  readonly range: Range;
}
interface LocationLink {
  readonly targetUri: string;
  readonly targetSelectionRange?: Range;
  readonly targetRange: Range;
}
interface DocumentSymbol {
  readonly name: string;
  readonly kind: number;
  readonly detail?: string;
  readonly range?: Range;
  readonly selectionRange?: Range;
  readonly location?: Location;
  readonly containerName?: string;
  readonly children?: readonly DocumentSymbol[];
}
export interface CallHierarchyItem {
  readonly name: string;
  readonly kind: number;
  readonly uri: string;
  readonly range: Range;
  readonly selectionRange: Range;
  readonly detail?: string;
}

/** LSP's SymbolKind numbers, named. */
const KINDS = ['', 'file', 'module', 'namespace', 'package', 'class', 'method', 'property', 'field', 'constructor', 'enum', 'interface', 'function', 'variable', 'constant', 'string', 'number', 'boolean', 'array', 'object', 'key', 'null', 'enum member', 'struct', 'event', 'operator', 'type parameter'];
const kindName = (kind: number) => KINDS[kind] ?? `kind ${kind}`;

export interface Formatted {
  readonly text: string;
  readonly resultCount: number;
  readonly fileCount: number;
  /** Every file the answer names (absolute), for filtering by the read rules. */
  readonly files: readonly string[];
}

export function uriToPath(uri: string): string | undefined {
  try {
    return uri.startsWith('file:') ? fileURLToPath(uri) : undefined;
  } catch {
    return undefined;
  }
}

export function displayLocation(uri: string, pos: Position, projectDir: string): string {
  const file = uriToPath(uri) ?? uri;
  const rel = path.relative(projectDir, file);
  const shown = rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
  return `${shown}:${pos.line + 1}:${pos.character + 1}`;
}

function asLocations(result: unknown): Location[] {
  const list = Array.isArray(result) ? result : result ? [result] : [];
  return list.flatMap((item: Location | LocationLink) => {
    if (item && typeof (item as LocationLink).targetUri === 'string') {
      const link = item as LocationLink;
      return [{ uri: link.targetUri, range: link.targetSelectionRange ?? link.targetRange }];
    }
    return item && typeof (item as Location).uri === 'string' ? [item as Location] : [];
  });
}

function summary(lines: string[], files: Set<string>, none: string): Formatted {
  return { text: lines.length === 0 ? none : lines.join('\n'), resultCount: lines.length, fileCount: files.size, files: [...files] };
}

export function formatLocations(result: unknown, projectDir: string, none: string, keep: (file: string) => boolean): Formatted {
  const files = new Set<string>();
  const lines: string[] = [];
  for (const loc of asLocations(result)) {
    const file = uriToPath(loc.uri);
    if (file !== undefined && !keep(file)) continue;
    if (file !== undefined) files.add(file);
    lines.push(displayLocation(loc.uri, loc.range.start, projectDir));
  }
  return summary([...new Set(lines)], files, none);
}

export function formatHover(result: unknown): Formatted {
  const contents = (result as { contents?: unknown } | null)?.contents;
  const part = (c: unknown): string => (typeof c === 'string' ? c : c && typeof (c as { value?: unknown }).value === 'string' ? (c as { value: string }).value : '');
  const text = (Array.isArray(contents) ? contents.map(part) : [part(contents)]).filter((t) => t.trim() !== '').join('\n\n').trim();
  return { text: text === '' ? 'No hover information at this position.' : text, resultCount: text === '' ? 0 : 1, fileCount: 0, files: [] };
}

export function formatSymbols(result: unknown, file: string | undefined, projectDir: string, none: string, keep: (file: string) => boolean): Formatted {
  const files = new Set<string>();
  const lines: string[] = [];
  const walk = (symbols: readonly DocumentSymbol[], depth: number) => {
    for (const s of symbols) {
      const uri = s.location?.uri;
      const where = uri ?? (file !== undefined ? `file://${file}` : undefined);
      const target = uri !== undefined ? uriToPath(uri) : file;
      if (target !== undefined && !keep(target)) continue;
      if (target !== undefined) files.add(target);
      const pos = (s.selectionRange ?? s.range ?? s.location?.range)?.start ?? { line: 0, character: 0 };
      const at = where !== undefined ? displayLocation(uri ?? `file://${file}`, pos, projectDir) : '';
      const container = s.containerName ? ` in ${s.containerName}` : '';
      lines.push(`${'  '.repeat(depth)}${s.name} (${kindName(s.kind)}${container}) ${at}`.trimEnd());
      if (s.children) walk(s.children, depth + 1);
    }
  };
  walk(Array.isArray(result) ? (result as DocumentSymbol[]) : [], 0);
  return summary(lines, files, none);
}

export function formatCallItems(items: readonly CallHierarchyItem[], projectDir: string, none: string, keep: (file: string) => boolean): Formatted {
  const files = new Set<string>();
  const lines: string[] = [];
  for (const item of items) {
    const file = uriToPath(item.uri);
    if (file !== undefined && !keep(file)) continue;
    if (file !== undefined) files.add(file);
    lines.push(`${item.name} (${kindName(item.kind)}) ${displayLocation(item.uri, item.selectionRange.start, projectDir)}`);
  }
  return summary(lines, files, none);
}
