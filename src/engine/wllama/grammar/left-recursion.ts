/**
 * `llama_grammar_detect_left_recursion` (src/llama-grammar.cpp), iterative: a rule that can reach
 * itself through its leftmost references (past ones that may be empty) is refused by llama.cpp.
 * Like llama.cpp's, it walks a rule again each time another rule starts with it; its visits are
 * bounded ({@link MAX_LEFT_VISITS}), and so is the depth llama.cpp recurses to ({@link MAX_LEFT_CHAIN}).
 */
import { MAX_LEFT_CHAIN, MAX_LEFT_VISITS } from './grammar-budget';

/** Element codes of an expanded rule: a rule reference is its id (≥ 0). */
export const ALT = -1;
export const END = -2;
export const TERMINAL = -3;

interface Frame {
  rule: number;
  i: number;
  recurse: boolean;
}

/**
 * The check over one grammar's expanded rules, one starting rule at a time (so it can be sliced);
 * `fail` throws.
 *
 * @example
 * const left = new LeftRecursionCheck(rules, fail);
 * for (let r = 0; r < rules.length; r++) left.check(r);
 */
export class LeftRecursionCheck {
  private readonly visited: Uint8Array;
  private readonly inProgress: Uint8Array;
  private readonly mayBeEmpty: Uint8Array;
  private visits = 0;

  constructor(
    private readonly rules: readonly number[][],
    private readonly fail: (rule: number, why: string) => never,
  ) {
    this.visited = new Uint8Array(rules.length);
    this.inProgress = new Uint8Array(rules.length);
    this.mayBeEmpty = new Uint8Array(rules.length);
  }

  check(root: number): void {
    if (this.visited[root]) return;
    const stack: Frame[] = [];
    this.enter(root, stack);
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as Frame;
      const body = this.rules[top.rule] as number[];
      if (top.i >= body.length) {
        this.inProgress[top.rule] = 0;
        this.visited[top.rule] = 1;
        stack.pop();
        const parent = stack[stack.length - 1];
        // Back in the parent: past the reference just checked only if that rule may be empty.
        if (parent && !this.mayBeEmpty[top.rule]) parent.recurse = false;
        continue;
      }
      const e = body[top.i++] as number;
      if (e >= 0 && top.recurse) this.enter(e, stack);
      else if (e === ALT || e === END) top.recurse = true;
      else top.recurse = false;
    }
  }

  private enter(rule: number, stack: Frame[]): void {
    if (this.inProgress[rule]) this.fail(rule, 'left recursion (a rule that may start with itself)');
    if (++this.visits > MAX_LEFT_VISITS) this.fail(rule, 'its left-recursion check takes too long');
    if (stack.length >= MAX_LEFT_CHAIN) this.fail(rule, `a chain of more than ${MAX_LEFT_CHAIN} rules`);
    this.inProgress[rule] = 1;
    // May be empty: an alternative with nothing in it (llama.cpp looks no further).
    let atStart = true;
    for (const e of this.rules[rule] as number[]) {
      if (e === ALT || e === END) {
        if (atStart) {
          this.mayBeEmpty[rule] = 1;
          break;
        }
        atStart = true;
      } else atStart = false;
    }
    stack.push({ rule, i: 0, recurse: true });
  }
}
