/**
 * LSP: Claude Code's code-intelligence tool (input `operation`, `filePath`, 1-based `line` and `character`, `query`)
 * on real language servers (`manager.ts`: started per project and language on first need, reused, restarted once
 * when gone, shut down on dispose). Read-only and concurrency-safe; judged as a read of `filePath` (Read rules,
 * working directories); files a Read deny rule covers are left out of its answers.
 */
import path from 'node:path';
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import type { PermissionResult } from '../../tool/permission-types.js';
import type { ValidationResult } from '../../tool/tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { sessionCwd } from '../shared/search-path.js';
import { answerFilter, HOVER_WITHHELD, judgedServer, libraryFilter, noteJudgedServer, readDocument } from './bound.js';
import { guardDeps, hoverDrawsOnHidden, type GuardRequest } from './hover-guard.js';
import { formatCallItems, formatHover, formatLocations, formatSymbols, type CallHierarchyItem, type Formatted } from './format.js';
import { locateServer, lspManagerFor, type DocumentText } from './manager.js';
import { LSP_OPERATIONS, LSP_TOOL_NAME, lspPrompt } from './prompt.js';
import { isInsideProject } from './project-path.js';
import { workspaceTypescriptRisk } from './workspace-typescript.js';

export { LSP_TOOL_NAME };
export type { LspServerConfig, LspSettings } from './servers.js';

export const lspInputSchema = z.strictObject({
  operation: z.enum(LSP_OPERATIONS).describe('What to ask the language server'),
  filePath: z.string().describe('The file to ask about (absolute, or relative to the working directory)'),
  line: z.number().int().positive().describe('The line of the symbol, starting at 1'),
  character: z.number().int().positive().describe('The character of the symbol on its line, starting at 1'),
  query: z.string().optional().describe('For workspaceSymbol: the name, or part of it, to look for'),
});
export type LspInput = z.infer<typeof lspInputSchema>;

export interface LspOutput {
  readonly operation: LspInput['operation'];
  readonly filePath: string;
  /** The answer as text: file:line:column lines, symbols, or hover text. */
  readonly result: string;
  readonly resultCount: number;
  readonly fileCount: number;
  /** The server that answered. */
  readonly server: string;
}

const absolute = (input: Pick<LspInput, 'filePath'>, context: ToolUseContext) => path.resolve(sessionCwd(context), input.filePath);

function validate(input: LspInput, context: ToolUseContext): ValidationResult {
  if (input.filePath.includes('\0')) return { result: false, message: 'filePath contains a NUL byte.', errorCode: 1 };
  if (input.operation === 'workspaceSymbol' && (input.query === undefined || input.query.trim() === '')) {
    return { result: false, message: 'workspaceSymbol needs a query (a name or part of one).', errorCode: 2 };
  }
  const located = locateServer(absolute(input, context), context, lspManagerFor(context).projectDir);
  if ('error' in located) return { result: false, message: located.error, errorCode: 3 };
  return { result: true };
}

async function ask(input: LspInput, context: ToolUseContext): Promise<Formatted & { server: string }> {
  const manager = lspManagerFor(context);
  const file = absolute(input, context);
  const found = locateServer(file, context, manager.projectDir);
  if ('error' in found) throw new Error(found.error);
  // The server the decision judged, never looked up again; the document as opened and bound (bound.ts).
  const located = judgedServer(found, context);
  const document = await readDocument(file, context);
  const signal = context.abortController.signal;
  const position = { line: input.line - 1, character: input.character - 1 };
  const at = (uri: string) => ({ textDocument: { uri }, position });
  const keep = answerFilter(context, manager.projectDir, located.executable);
  const seconds = context.options.settings.lsp?.requestTimeoutSeconds;
  const timeoutMs = seconds !== undefined && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
  const req: GuardRequest = <T>(method: string, params: (uri: string) => unknown, target?: { file: string; document: DocumentText; languageId: string }) =>
    manager.request<T>(
      target ? { ...located, server: { ...located.server, languageId: target.languageId } } : located,
      target?.file ?? file,
      target?.document ?? document,
      method,
      params,
      { signal, ...(timeoutMs !== undefined ? { timeoutMs } : {}) },
    );
  const dir = manager.projectDir;
  let formatted: Formatted;
  switch (input.operation) {
    case 'goToDefinition':
      formatted = formatLocations(await req('textDocument/definition', at), dir, 'No definition found.', keep);
      break;
    case 'goToImplementation':
      formatted = formatLocations(await req('textDocument/implementation', at), dir, 'No implementation found.', keep);
      break;
    case 'findReferences':
      formatted = formatLocations(await req('textDocument/references', (uri) => ({ ...at(uri), context: { includeDeclaration: true } })), dir, 'No references found.', keep);
      break;
    case 'hover': {
      // The server quotes what it read, wherever from: a symbol defined in a file the session may not read gets no
      // hover text (when the definition cannot be asked, none either).
      const [hover, definition] = await Promise.all([req('textDocument/hover', at), req('textDocument/definition', at).catch(() => undefined)]);
      const defined = definition === undefined ? undefined : formatLocations(definition, dir, '', keep);
      const all = definition === undefined ? [] : formatLocations(definition, dir, '', () => true).files;
      // Then what the server may have inferred the text from: the files these import, and theirs (hover-guard.ts).
      const hidden = defined === undefined || defined.files.length < all.length || (await hoverDrawsOnHidden([file, ...all], guardDeps(located, keep, libraryFilter(context, dir, located.executable), req)).catch(() => true));
      formatted = hidden ? { text: HOVER_WITHHELD, resultCount: 0, fileCount: 0, files: [] } : formatHover(hover);
      break;
    }
    case 'documentSymbol':
      formatted = formatSymbols(await req('textDocument/documentSymbol', (uri) => ({ textDocument: { uri } })), file, dir, 'No symbols in this file.', keep);
      break;
    case 'workspaceSymbol':
      // The file is opened first (in `request`): a server such as tsserver knows a project only once a file of it is open.
      formatted = formatSymbols(await req('workspace/symbol', () => ({ query: input.query })), undefined, dir, `No symbols match "${input.query}".`, keep);
      break;
    case 'prepareCallHierarchy':
      formatted = formatCallItems((await req<CallHierarchyItem[] | null>('textDocument/prepareCallHierarchy', at)) ?? [], dir, 'No function or method at this position.', keep);
      break;
    case 'incomingCalls':
    case 'outgoingCalls': {
      const items = (await req<CallHierarchyItem[] | null>('textDocument/prepareCallHierarchy', at)) ?? [];
      if (items.length === 0) {
        formatted = formatCallItems([], dir, 'No function or method at this position.', keep);
        break;
      }
      const incoming = input.operation === 'incomingCalls';
      const calls = (await req<{ from?: CallHierarchyItem; to?: CallHierarchyItem }[] | null>(`callHierarchy/${input.operation}`, () => ({ item: items[0] }))) ?? [];
      formatted = formatCallItems(calls.flatMap((c) => (incoming ? (c.from ? [c.from] : []) : c.to ? [c.to] : [])), dir, incoming ? 'No callers found.' : 'No calls found.', keep);
      break;
    }
  }
  return { ...formatted, server: located.server.name };
}

/** A server that would start from inside the project runs the repository's code: a person says yes first. */
async function checkServer(input: LspInput, context: ToolUseContext): Promise<PermissionResult<LspInput>> {
  const manager = lspManagerFor(context);
  const located = locateServer(absolute(input, context), context, manager.projectDir);
  if ('error' in located) return { behavior: 'allow', updatedInput: input };
  // What is judged here is what call() starts: it never looks the server up again (a file put there since is not run).
  noteJudgedServer(located, context);
  const workspace = workspaceTypescriptRisk(located.executable, located.server.config.initializationOptions, manager.projectDir);
  if (!isInsideProject(located.executable, context) && workspace === undefined) return { behavior: 'allow', updatedInput: input };
  const reason = workspace ?? `The ${located.server.name} language server would start from inside the project (${located.executable}): that runs code the repository supplies.`;
  return { behavior: 'ask', message: reason, decisionReason: { layer: 'safetyCheck', reason, classifierApprovable: false } };
}

export const LspTool = buildTool<typeof lspInputSchema, LspOutput>({
  name: LSP_TOOL_NAME,
  asyncSafe: true,
  permissionTraits: { kind: 'read', pathField: 'filePath' },
  searchHint: 'code intelligence: definitions, references, symbols, hover, call hierarchy',
  inputSchema: lspInputSchema,
  maxResultSizeChars: 100_000,
  shouldDefer: true,
  prompt: async () => lspPrompt(),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  validateInput: async (input, context) => validate(input, context),
  checkPermissions: (input, context) => checkServer(input, context),
  call: async (input, context) => {
    const check = validate(input, context);
    if (!check.result) throw new Error(check.message);
    const answer = await ask(input, context);
    return {
      data: { operation: input.operation, filePath: input.filePath, result: answer.text, resultCount: answer.resultCount, fileCount: answer.fileCount, server: answer.server },
    };
  },
  mapToolResultToToolResultBlockParam: (data, toolUseId) => ({ type: 'tool_result', tool_use_id: toolUseId, content: data.result }),
  renderToolUseMessage: (input) => `${input.operation ?? ''} ${input.filePath ?? ''}${input.line !== undefined ? `:${input.line}:${input.character ?? ''}` : ''}${input.query ? ` "${input.query}"` : ''}`.trim(),
  renderToolResultMessage: (data) => (data.operation === 'hover' ? data.result.split('\n')[0]! : `${data.resultCount} result${data.resultCount === 1 ? '' : 's'}`),
  loadViews: () => import('./render.js').then((m) => m.lspViews),
});
