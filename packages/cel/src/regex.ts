/**
 * Regular expressions with RE2 semantics and linear-time matching, as CEL (cel-go, Kubernetes)
 * defines `matches`. cel-js' built-in `matches` uses JavaScript's backtracking RegExp, where a
 * pattern such as `^(a+)+$` against a claim an IdP user controls takes exponential time, and RE2
 * syntax such as `(?i)` is rejected. @bufbuild/re2 (an RE2 port) answers `matches`; `find` and
 * `findAll` need match positions, which it does not offer, so they first ask RE2 whether there is
 * a match at all (the case where backtracking explodes) and only then extract with RegExp.
 */
import { RE2JS } from '@bufbuild/re2';
import { EvaluationError } from '@marcbachmann/cel-js';
import { LRUCache } from 'lru-cache';
import type { ASTNode } from '@marcbachmann/cel-js';

const compiled = new LRUCache<string, RE2JS>({ max: 256 });

/** Compiles (and caches) a pattern; throws the RE2 syntax error message. */
export function compileRE2(pattern: string): RE2JS {
  let re = compiled.get(pattern);
  if (!re) {
    re = new RE2JS(pattern);
    compiled.set(pattern, re);
  }
  return re;
}

/** The RE2 syntax problem of a pattern, or undefined when it compiles. */
export function re2SyntaxError(pattern: string): string | undefined {
  try {
    compileRE2(pattern);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** CEL `matches`: true when the pattern matches any substring (unanchored), in linear time. */
export function re2Matches(value: string, pattern: string): boolean {
  let re: RE2JS;
  try {
    re = compileRE2(pattern);
  } catch (error) {
    throw new EvaluationError(`invalid matches argument: ${(error as Error).message}`);
  }
  return re.test(value);
}

/** Whether `find`/`findAll` may run the JavaScript RegExp: only when RE2 sees a match. */
export function re2Guard(value: string, pattern: string): boolean {
  return re2Matches(value, pattern);
}

interface EvaluatorLike {
  run(node: ASTNode, ctx: unknown): unknown;
}

/**
 * Points every receiver-style `matches` call of a checked AST at RE2. Returns the first constant
 * pattern that RE2 rejects, with its node, so the compiler can report it.
 */
export function routeMatchesToRE2(root: ASTNode): { node: ASTNode; error: string } | undefined {
  let invalid: { node: ASTNode; error: string } | undefined;
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(visit);
      return;
    }
    if (!node || typeof node !== 'object' || !('op' in node) || !('args' in node)) return;
    const ast = node as ASTNode;
    if (ast.op === 'rcall' && ast.args[0] === 'matches' && ast.args[2].length === 1) {
      const receiver = ast.args[1];
      const patternNode = ast.args[2][0]!;
      if (patternNode.op === 'value' && typeof patternNode.args === 'string') {
        const error = re2SyntaxError(patternNode.args);
        if (error && !invalid) invalid = { node: patternNode, error };
      }
      Object.defineProperty(ast, 'evaluate', {
        value: (ev: EvaluatorLike, _ast: ASTNode, ctx: unknown) => {
          const value = ev.run(receiver, ctx);
          const pattern = ev.run(patternNode, ctx);
          if (typeof value !== 'string' || typeof pattern !== 'string') {
            throw new EvaluationError(`found no matching overload for 'matches' applied to '(${typeof value}, ${typeof pattern})'`);
          }
          return re2Matches(value, pattern);
        },
        writable: true,
        configurable: true,
      });
    }
    visit(ast.args);
  };
  visit(root);
  return invalid;
}
