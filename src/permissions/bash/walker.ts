/**
 * Walks a tree-sitter-bash tree and collects every simple command that can run — across lists, pipelines,
 * subshells, groups, substitutions, process substitutions, heredocs, loops, conditionals and function bodies — in
 * execution order. Unknown syntax is a parse error (fail closed), never silently skipped.
 */
import type { SyntaxNode } from './parser.js';
import type { Redirect, ShellNames, SimpleCommand, SubcommandKind } from './types.js';
import { evaluateWord, hiddenExpansion, type WordValue } from './words.js';
import { checkArithmetic, checkExpansion, checkSubscript, checkTest } from './syntax-checks.js';
import { isDangerousVariable } from './assignments.js';
import { commandMismatch, redirectMismatch, structureMismatch } from './syntax-agreement.js';

/** What a command is fed on stdin from a heredoc or here-string (for `bash <<'EOF'`). */
export interface StdinCode {
  readonly code: string | null;
}

export interface RawCommand {
  readonly kind: SubcommandKind;
  readonly text: string;
  readonly words: WordValue[];
  readonly assignments: string[];
  readonly redirects: Redirect[];
  readonly unsafe: string[];
  readonly stdin?: StdinCode;
  /** Not the first stage of a pipeline: its stdin is another command's output. */
  readonly pipedInto?: boolean;
  /** The first `${…}` parameter expansion in it (the read-only classification takes bare `$VAR` only). */
  readonly paramExpansion?: string;
}

/** Turns raw commands into finished ones (wrappers, deny views, nested `bash -c`); supplied by the analyser. */
export type Finish = (raw: RawCommand) => SimpleCommand;

const PASS_THROUGH = new Set([
  'program', 'list', 'pipeline', 'subshell', 'do_group', 'if_statement', 'elif_clause', 'else_clause',
  'while_statement', 'case_statement', 'case_item', 'negated_command', 'command_substitution',
  'process_substitution', 'string', 'concatenation', 'array', 'heredoc_body', 'binary_expression', 'unary_expression',
  'parenthesized_expression', 'ternary_expression', 'postfix_expression', 'translated_string', 'brace_expression',
]);
const LEAVES = new Set([
  'word', 'number', 'raw_string', 'ansi_c_string', 'string_content', 'heredoc_content', 'heredoc_start',
  'heredoc_end', 'file_descriptor', 'variable_name', 'special_variable_name', 'simple_expansion', 'test_operator',
  'regex', 'extglob_pattern', 'comment',
]);
const WORDISH = new Set([
  'word', 'number', 'raw_string', 'ansi_c_string', 'string', 'concatenation', 'simple_expansion', 'expansion',
  'command_substitution', 'translated_string', 'regex', 'extglob_pattern', 'arithmetic_expansion', 'process_substitution',
]);
const WRITE_OPS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);

export class Walker {
  readonly commands: SimpleCommand[] = [];
  /** The finished command of each `command` node, to find the top-level `cd`s of an `&&` chain. */
  readonly byNode = new Map<SyntaxNode, SimpleCommand>();
  parseError: string | undefined;
  /** What the shell may set outside simple commands (loops, `${x:=…}`, function definitions), from the tree only. */
  readonly names = { loops: [] as string[], defaults: [] as string[], functions: [] as string[] } satisfies ShellNames;
  private readonly unsafeStack: string[][] = [];
  /** The first `${…}` seen while a command's frame (its unsafe list) was on top of the stack. */
  private readonly paramOf = new WeakMap<string[], string>();

  constructor(private readonly finish: Finish) {}

  private flag(reason: string, node: SyntaxNode): void {
    const top = this.unsafeStack[this.unsafeStack.length - 1];
    if (top) top.push(reason);
    else this.push({ kind: 'arithmetic', text: node.text, words: [], assignments: [], redirects: [], unsafe: [reason] });
  }

  private push(raw: RawCommand): void {
    this.commands.push(this.finish(raw));
  }

  private walkChildren(node: SyntaxNode): void {
    this.parseError ??= structureMismatch(node);
    for (const child of node.namedChildren) this.walk(child);
  }

  walk(node: SyntaxNode): void {
    const type = node.type;
    if (!node.isNamed) return;
    switch (type) {
      case 'ERROR':
        this.parseError ??= `syntax error near ${JSON.stringify(node.text.slice(0, 40))}`;
        this.walkChildren(node);
        return;
      case 'command':
        this.command(node, []);
        return;
      case 'redirected_statement':
        this.redirected(node);
        return;
      case 'variable_assignment':
      case 'variable_assignments':
        this.bareAssignments(node);
        return;
      case 'declaration_command':
      case 'unset_command':
        this.declaration(node);
        return;
      case 'test_command':
        this.test(node);
        return;
      case 'compound_statement':
        if (node.firstChild?.type === '((') {
          this.arithmeticCommand(node);
          return;
        }
        this.walkChildren(node);
        return;
      case 'c_style_for_statement': {
        const header = node.text.slice(0, node.text.indexOf('))') + 2);
        const reason = checkArithmetic(header);
        if (reason) this.flag(reason, node);
        this.walkChildren(node);
        return;
      }
      case 'for_statement': {
        const variable = node.children.find((c) => c.type === 'variable_name')?.text ?? '';
        if (variable !== '') this.names.loops.push(variable);
        if (isDangerousVariable(variable)) {
          this.push({ kind: 'assignment', text: node.text, words: [], assignments: [`${variable}=…`], redirects: [], unsafe: [] });
        }
        this.walkChildren(node);
        return;
      }
      case 'arithmetic_expansion': {
        const reason = checkArithmetic(node.text);
        if (reason) this.flag(reason, node);
        this.walkChildren(node);
        return;
      }
      case 'expansion': {
        const reason = checkExpansion(node.text);
        if (reason) this.flag(reason, node);
        const top = this.unsafeStack[this.unsafeStack.length - 1];
        if (top) {
          if (!this.paramOf.has(top)) this.paramOf.set(top, node.text);
        } else {
          // Outside any command (`for f in ${L}`, `case ${x} in`): a statement of its own, so it is judged too.
          this.push({ kind: 'arithmetic', text: node.text, words: [], assignments: [], redirects: [], unsafe: [], paramExpansion: node.text });
        }
        const [, target, op] = node.children;
        const name = target?.type === 'subscript' ? target.namedChildren[0] : target;
        if (name?.type === 'variable_name' && (op?.type === ':=' || op?.type === '=')) this.names.defaults.push(name.text);
        this.walkChildren(node);
        return;
      }
      case 'subscript': {
        const reason = checkSubscript(node);
        if (reason) this.flag(reason, node);
        this.walkChildren(node);
        return;
      }
      case 'file_redirect':
      case 'herestring_redirect':
      case 'heredoc_redirect':
        // A redirect with no command (`> file`) truncates or creates the file: check it as a write.
        this.push({ kind: 'redirect', text: node.text, words: [], assignments: [], redirects: this.redirectsOf([node], []), unsafe: [] });
        return;
      case 'function_definition': {
        const name = node.children.find((c) => c.type === 'word');
        if (name) this.names.functions.push(name.text);
        this.walkChildren(node);
        return;
      }
      case 'word':
      case 'string_content':
      case 'heredoc_content':
      case 'extglob_pattern':
      case 'regex':
        if (hiddenExpansion(node.text) === 'command') this.flag('a command substitution the parser did not recognise', node);
        return;
      default:
        if (LEAVES.has(type)) return;
        if (PASS_THROUGH.has(type)) {
          this.walkChildren(node);
          return;
        }
        this.parseError ??= `unsupported shell syntax: ${type}`;
        this.walkChildren(node);
    }
  }

  private command(node: SyntaxNode, outerRedirects: SyntaxNode[]): void {
    const unsafe: string[] = [];
    this.unsafeStack.push(unsafe);
    const words: WordValue[] = [];
    const assignments: string[] = [];
    const redirectNodes = [...outerRedirects];
    const children = node.children;
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!;
      switch (child.type) {
        case 'variable_assignment':
          assignments.push(child.text);
          this.walkChildren(child);
          break;
        case 'command_name': {
          const inner = child.firstNamedChild ?? child;
          words.push(evaluateWord(inner));
          this.walk(inner);
          break;
        }
        case 'file_redirect':
        case 'heredoc_redirect':
        case 'herestring_redirect':
          redirectNodes.push(child);
          break;
        case 'comment':
          break;
        default:
          if (!child.isNamed) {
            // `$"…"`: a bare `$` before a string (locale translation).
            if (child.type === '$' && children[i + 1]?.type === 'string') break;
            unsafe.push(`unexpected token ${JSON.stringify(child.text)}`);
            break;
          }
          words.push(evaluateWord(child));
          this.walk(child);
      }
    }
    this.parseError ??= commandMismatch(node);
    const deferred: SyntaxNode[] = [];
    let stdin: StdinCode | undefined;
    const redirects = this.redirectsOf(redirectNodes, deferred, (code) => (stdin = code));
    this.unsafeStack.pop();
    const stage = node.parent?.type === 'redirected_statement' ? node.parent : node;
    const pipedInto = stage.parent?.type === 'pipeline' && stage.parent.children[0] !== stage;
    this.push({ kind: 'command', text: node.text, words, assignments, redirects, unsafe, stdin, pipedInto, paramExpansion: this.paramOf.get(unsafe) });
    this.byNode.set(node, this.commands[this.commands.length - 1]!);
    for (const d of deferred) this.walk(d);
  }

  private redirected(node: SyntaxNode): void {
    const body = node.namedChildren.find((c) => !c.type.endsWith('redirect')) ?? null;
    const redirectNodes: SyntaxNode[] = [];
    for (const child of node.children) {
      if (child && child !== body && child.isNamed && child.type.endsWith('redirect')) redirectNodes.push(child);
    }
    if (body?.type === 'command') {
      this.command(body, redirectNodes);
      return;
    }
    if (body) this.walk(body);
    const deferred: SyntaxNode[] = [];
    const redirects = this.redirectsOf(redirectNodes, deferred);
    this.push({ kind: 'redirect', text: node.text, words: [], assignments: [], redirects, unsafe: [] });
    for (const d of deferred) this.walk(d);
  }

  /** Parse redirect nodes; nested statements tree-sitter hangs under a heredoc go to `deferred`. */
  private redirectsOf(nodes: readonly SyntaxNode[], deferred: SyntaxNode[], onStdin?: (code: StdinCode) => void): Redirect[] {
    const out: Redirect[] = [];
    for (const n of nodes) this.redirect(n, out, deferred, onStdin);
    return out;
  }

  private redirect(r: SyntaxNode, out: Redirect[], deferred: SyntaxNode[], onStdin: ((code: StdinCode) => void) | undefined): void {
    if (r.type === 'file_redirect') {
      let fd: number | undefined;
      let op = '';
      let dest: SyntaxNode | undefined;
      for (const c of r.children) {
        if (!c) continue;
        if (c.type === 'file_descriptor') fd = Number(c.text);
        else if (!c.isNamed) op += c.type;
        else if (!dest) dest = c;
        this.walk(c);
      }
      if (!dest) {
        out.push({ op, fd, target: null, isWrite: false });
        return;
      }
      this.parseError ??= redirectMismatch(r, dest);
      const v = evaluateWord(dest);
      const target = v.literal && !v.glob ? v.value : null;
      let isWrite = WRITE_OPS.has(op);
      if (op === '>&' && target !== null && /^(\d+|-)$/.test(target)) isWrite = false;
      else if (op === '>&') isWrite = true;
      if (dest.type === 'process_substitution') isWrite = false;
      out.push({ op, fd, target: dest.type === 'process_substitution' ? dest.text : target, isWrite });
      return;
    }
    if (r.type === 'herestring_redirect') {
      const word = r.namedChildren[0];
      if (word) this.parseError ??= redirectMismatch(r, word);
      const v = word ? evaluateWord(word) : undefined;
      if (word) this.walk(word);
      out.push({ op: '<<<', target: null, isWrite: false });
      onStdin?.({ code: v?.literal ? v.value : null });
      return;
    }
    if (r.type === 'heredoc_redirect') {
      let op = '<<';
      let quoted = false;
      let body: SyntaxNode | undefined;
      for (const c of r.children) {
        if (!c) continue;
        if (c.type === '<<' || c.type === '<<-') op = c.type;
        else if (c.type === 'heredoc_start') quoted = /['"\\]/.test(c.text);
        else if (c.type === 'heredoc_body') {
          body = c;
          this.walk(c);
        } else if (c.type === 'file_redirect' || c.type === 'herestring_redirect' || c.type === 'heredoc_redirect') this.redirect(c, out, deferred, onStdin);
        else if (c.isNamed && c.type !== 'heredoc_end') deferred.push(c);
      }
      out.push({ op, target: null, isWrite: false });
      // tree-sitter leaves backticks in an unquoted heredoc body as text; bash runs them.
      if (body && !quoted && body.children.length === 0 && hiddenExpansion(body.text) === 'command') {
        this.flag('a command substitution in a heredoc body the parser did not recognise', body);
      }
      const literal = body && (quoted || body.namedChildren.every((c) => c?.type === 'heredoc_content'));
      onStdin?.({ code: body === undefined ? '' : literal ? body.text : null });
      return;
    }
    this.walk(r);
  }

  private bareAssignments(node: SyntaxNode): void {
    const unsafe: string[] = [];
    this.unsafeStack.push(unsafe);
    const list = node.type === 'variable_assignments' ? node.namedChildren : [node];
    const assignments: string[] = [];
    for (const a of list) {
      if (!a) continue;
      assignments.push(a.text);
      this.walkChildren(a);
    }
    this.unsafeStack.pop();
    this.push({ kind: 'assignment', text: node.text, words: [], assignments, redirects: [], unsafe, paramExpansion: this.paramOf.get(unsafe) });
  }

  private declaration(node: SyntaxNode): void {
    const unsafe: string[] = [];
    this.unsafeStack.push(unsafe);
    const words: WordValue[] = [];
    for (const c of node.children) {
      if (!c) continue;
      if (!c.isNamed) {
        words.push({ value: c.text, literal: true, glob: false, unquotedNonAscii: false });
        continue;
      }
      if (c.type === 'variable_assignment') {
        const eq = c.children.findIndex((x) => x.type === '=');
        const valueNode = eq === -1 ? undefined : c.children[eq + 1];
        const name = c.text.slice(0, c.text.indexOf('='));
        const v = valueNode ? evaluateWord(valueNode) : undefined;
        words.push({ value: `${name}=${v?.value ?? ''}`, literal: v ? v.literal : true, glob: false, unquotedNonAscii: v?.unquotedNonAscii ?? false });
      } else if (c.type === 'variable_name') {
        words.push({ value: c.text, literal: true, glob: false, unquotedNonAscii: false });
      } else {
        const v = evaluateWord(c);
        if (c.type !== 'variable_name' && (!v.literal || v.value.includes('['))) {
          unsafe.push(`${node.firstChild?.text ?? 'declare'} with a name that is not plain (array subscripts are evaluated)`);
        }
        words.push(v);
      }
      this.walk(c);
    }
    this.unsafeStack.pop();
    this.push({ kind: 'declaration', text: node.text, words, assignments: [], redirects: [], unsafe, paramExpansion: this.paramOf.get(unsafe) });
  }

  private test(node: SyntaxNode): void {
    const unsafe: string[] = [];
    const reason = checkTest(node);
    if (reason) unsafe.push(reason);
    this.unsafeStack.push(unsafe);
    const words: WordValue[] = [{ value: node.firstChild?.type ?? '[', literal: true, glob: false, unquotedNonAscii: false }];
    const collect = (n: SyntaxNode): void => {
      for (const c of n.namedChildren) {
        if (!c) continue;
        if (WORDISH.has(c.type)) words.push(evaluateWord(c));
        else if (c.type !== 'test_operator') collect(c);
      }
    };
    collect(node);
    this.walkChildren(node);
    this.unsafeStack.pop();
    this.push({ kind: 'test', text: node.text, words, assignments: [], redirects: [], unsafe, paramExpansion: this.paramOf.get(unsafe) });
  }

  private arithmeticCommand(node: SyntaxNode): void {
    const reason = checkArithmetic(node.text);
    const frame: string[] = [];
    this.unsafeStack.push(frame);
    this.walkChildren(node);
    this.unsafeStack.pop();
    this.push({ kind: 'arithmetic', text: node.text, words: [], assignments: [], redirects: [], unsafe: reason ? [reason] : [], paramExpansion: this.paramOf.get(frame) });
  }
}
