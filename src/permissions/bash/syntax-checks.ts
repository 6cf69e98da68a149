/**
 * Shell constructs that run code hidden in data. Bash evaluates array subscripts and arithmetic recursively, so
 * `x='a[$(id)]'; echo $((x))` runs `id`; the same happens through `${!x}`, `${x@P}`, `${s:x}`, `[[ $x -eq 1 ]]`,
 * `printf -v`, `declare`, `read`, `test -v` … Each check returns why a node is unsafe, or undefined.
 */
import type { SyntaxNode } from './parser.js';
import type { WordValue } from './words.js';
import { isDangerousVariable } from './assignments.js';

const PLAIN_ARITHMETIC = /^[\s\d+\-*/%()<>=!&|^~?:,]*$/;

/** `$((…))`, `$[…]`, `((…))`, `for ((…))`: only numbers and operators are safe. */
export function checkArithmetic(text: string): string | undefined {
  const inner = text.replace(/^\$?\(\(|^\$\[|^for\s*\(\(/, '').replace(/\)\)\s*$|\]$/, '');
  if (PLAIN_ARITHMETIC.test(inner)) return undefined;
  return 'arithmetic on variables or substitutions (bash evaluates array subscripts in their values as code)';
}

const SAFE_SUBSCRIPT = /^(\d+|@|\*)$/;

export function checkSubscript(node: SyntaxNode): string | undefined {
  const index = node.namedChildren[1];
  if (!index || SAFE_SUBSCRIPT.test(index.text)) return undefined;
  return 'array subscript that is not a plain number (evaluated as arithmetic)';
}

export function checkExpansion(text: string): string | undefined {
  if (/@P\}$/.test(text)) return 'prompt expansion ${…@P} can run commands';
  if (text.startsWith('${!') && !/^\$\{![A-Za-z_]\w*(\[[@*]\]|[@*])\}$/.test(text)) {
    return 'indirect expansion ${!…} (evaluates a name taken from a variable)';
  }
  const assign = /^\$\{([A-Za-z_]\w*):?=/.exec(text);
  if (assign && isDangerousVariable(assign[1]!)) return `\${${assign[1]}:=…} sets a variable that changes how commands run`;
  const sub = /^\$\{[A-Za-z_]\w*(?:\[[^\]]*\])?:(?![-=?+])(.*)\}$/s.exec(text);
  if (sub && !/^\s*-?\d+\s*(:\s*-?\d+\s*)?$/.test(sub[1]!)) return 'substring offsets that are not plain numbers (evaluated as arithmetic)';
  return undefined;
}

const ARITH_TEST_OPS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

/** `[[ … ]]` / `[ … ]`. */
export function checkTest(node: SyntaxNode): string | undefined {
  const doubleBracket = node.firstChild?.type === '[[';
  let reason: string | undefined;
  const visit = (n: SyntaxNode): void => {
    if (reason) return;
    if (n.type === 'binary_expression' && doubleBracket) {
      const op = n.children[1]?.text ?? '';
      if (ARITH_TEST_OPS.has(op)) {
        const operands = n.namedChildren.filter((c) => c && c.type !== 'test_operator');
        if (!operands.every((c) => c && /^-?\d+$/.test(c.text))) {
          reason = `[[ ${op} ]] on non-numbers (evaluated as arithmetic)`;
          return;
        }
      }
    }
    if (n.type === 'unary_expression') {
      const op = n.firstChild?.text;
      const operand = n.namedChildren[n.namedChildren.length - 1];
      if (op === '-v' && operand && !/^[A-Za-z_]\w*$/.test(operand.text)) {
        reason = 'test -v on something other than a plain name (subscripts are evaluated)';
        return;
      }
    }
    for (const c of n.namedChildren) if (c) visit(c);
  };
  visit(node);
  return reason;
}

const NAME_BUILTINS = new Set(['read', 'mapfile', 'readarray', 'getopts', 'wait', 'unset', 'export', 'declare', 'typeset', 'local', 'readonly']);

/** Builtins that take variable names: a name with a subscript or from an expansion is evaluated. */
export function checkNameBuiltin(words: readonly WordValue[]): string | undefined {
  const name = words[0]?.value;
  if (name === undefined || !words[0]!.literal) return undefined;
  if (name === 'let') {
    return words.slice(1).every((w) => w.literal && /^[\s\d+\-*/%()<>=!&|^~?:,]*$/.test(w.value)) ? undefined : 'let evaluates arithmetic on variables';
  }
  if (name === 'printf') {
    const v = words.findIndex((w, i) => i > 0 && w.literal && (w.value === '-v' || (w.value.startsWith('-v') && w.value.length > 2)));
    if (v === -1) return undefined;
    const target = words[v]!.value === '-v' ? words[v + 1] : { value: words[v]!.value.slice(2), literal: true };
    return target && target.literal && /^[A-Za-z_]\w*$/.test(target.value) ? undefined : 'printf -v with a name that is not plain';
  }
  if (name === 'test' || name === '[') {
    const v = words.findIndex((w) => w.literal && w.value === '-v');
    if (v === -1) return undefined;
    const target = words[v + 1];
    return target && target.literal && /^[A-Za-z_]\w*$/.test(target.value) ? undefined : 'test -v on something other than a plain name';
  }
  if (!NAME_BUILTINS.has(name)) return undefined;
  for (const w of words.slice(1)) {
    if (!w.literal) return `${name} with a non-literal argument (could name an array subscript that runs code)`;
    const bare = w.value.split('=')[0]!;
    if (bare.includes('[') || bare.includes('`') || bare.includes('$(')) return `${name} with an array subscript (evaluated as code)`;
  }
  return undefined;
}
