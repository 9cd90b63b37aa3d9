/**
 * Bounded evaluation. cel-js has no cost model, so each environment counts evaluation steps: every
 * AST node the evaluator runs (including each iteration of a comprehension) is one step. Kubernetes
 * bounds a single expression by a runtime cost limit; a step limit plays the same role here and a
 * wall-clock limit catches the rest (for example a slow builtin over a large input).
 */
import { CelBudgetExceededError } from './errors.js';

export interface EvaluationBudget {
  /** Maximum evaluation steps (AST node visits) per evaluation. */
  maxSteps: number;
  /** Maximum wall-clock time per evaluation, in milliseconds. */
  maxMilliseconds: number;
}

export const defaultEvaluationBudget: EvaluationBudget = { maxSteps: 1_000_000, maxMilliseconds: 100 };

/** How often (in steps) the clock is read; reading it every step would dominate simple expressions. */
const clockInterval = 1024;

interface Runnable {
  evaluate(evaluator: unknown, ast: Runnable, ctx: unknown): unknown;
}

/** Mutable per-environment meter; evaluation is synchronous, so one meter serves one environment. */
export class StepMeter {
  private steps = 0;
  private limit = 0;
  private deadline = 0;
  private maxMilliseconds = 0;
  private nextClockCheck = 0;

  start(budget: EvaluationBudget): void {
    this.steps = 0;
    this.limit = budget.maxSteps;
    this.maxMilliseconds = budget.maxMilliseconds;
    // The clock is first read after `clockInterval` steps: typical expressions finish sooner and
    // never pay for it; the time limit then counts from that first reading.
    this.deadline = 0;
    this.nextClockCheck = clockInterval;
  }

  /** Steps taken by the last (or current) evaluation. */
  get used(): number {
    return this.steps;
  }

  tick(): void {
    const steps = ++this.steps;
    if (steps > this.limit) {
      throw new CelBudgetExceededError(`operation cancelled: actual cost limit exceeded (more than ${this.limit} steps)`);
    }
    if (steps >= this.nextClockCheck) {
      this.nextClockCheck = steps + clockInterval;
      const now = performance.now();
      if (this.deadline === 0) this.deadline = now + this.maxMilliseconds;
      else if (now > this.deadline) {
        throw new CelBudgetExceededError(`operation cancelled: evaluation took longer than ${this.maxMilliseconds}ms`);
      }
    }
  }

  /**
   * Installs the meter on cel-js' evaluator instance. Every node evaluation, including each
   * comprehension iteration and each lazily evaluated operand, goes through `run`, so counting
   * there counts the whole walk.
   */
  install(evaluator: object): void {
    const tick = () => this.tick();
    Object.defineProperty(evaluator, 'run', {
      value: function run(this: unknown, ast: Runnable, ctx: unknown) {
        tick();
        return ast.evaluate(this, ast, ctx);
      },
      writable: true,
      configurable: true,
    });
    // `all`, `exists`, `||` and `&&` evaluate operands through tryEval, which turns errors into
    // values (CEL's error absorption). A budget overrun must not be absorbed: it ends the evaluation.
    Object.defineProperty(evaluator, 'tryEval', {
      value: function tryEval(this: { run(ast: Runnable, ctx: unknown): unknown }, ast: Runnable, ctx: unknown) {
        try {
          return this.run(ast, ctx);
        } catch (error) {
          if (error instanceof CelBudgetExceededError) throw error;
          return error;
        }
      },
      writable: true,
      configurable: true,
    });
  }
}
