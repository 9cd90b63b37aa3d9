import type { CommandContext } from '../context.js';
import { CommandError } from '../errors.js';
import type { Io } from '../io.js';
import type { CommandSpec } from '../command-table.js';
import { globalFlags } from '../global-flags.js';

type YargsInstance = {
  scriptName(n: string): YargsInstance;
  command(cmd: string, desc: string, builder?: (y: YargsInstance) => YargsInstance): YargsInstance;
  option(name: string, opts: Record<string, unknown>): YargsInstance;
  completion(cmd: string, desc: false): YargsInstance;
  showCompletionScript($0?: string, cmd?: string): YargsInstance;
  getCompletion(args: string[]): Promise<string[]>;
  help(enable: boolean): YargsInstance;
  version(enable: boolean): YargsInstance;
};

/**
 * The command table and the descriptions of command groups: handed in by the caller (which
 * owns the table) instead of imported, so the table can load this module lazily.
 */
export interface CommandTree {
  commands: readonly CommandSpec[];
  commandGroups: Readonly<Record<string, string>>;
}

/** The command tree as yargs sees it, built from the same tables the parser uses. */
async function buildYargs({ commands, commandGroups }: CommandTree, args: string[], shell: string): Promise<YargsInstance> {
  const saved = process.env.SHELL;
  process.env.SHELL = shell === 'zsh' ? '/bin/zsh' : '/bin/bash';
  try {
    const { default: yargs } = (await import('yargs')) as unknown as { default: (a: string[]) => YargsInstance };
    let y = yargs(args).scriptName('clientctl').help(false).version(false).completion('completion', false);
    for (const f of globalFlags.filter((g) => !g.hidden)) y = y.option(f.name, { type: f.type === 'bool' ? 'boolean' : 'string', describe: f.usage, ...(f.short ? { alias: f.short } : {}) });
    const top = new Map<string, CommandSpec[]>();
    for (const c of commands) {
      const head = c.path.split(' ')[0];
      top.set(head, [...(top.get(head) ?? []), c]);
    }
    for (const [head, group] of top) {
      const describe = head in commandGroups ? commandGroups[head] : group[0].short;
      y = y.command(head, describe, (sub) => {
        let s = sub;
        for (const c of group) {
          const word = c.path.split(' ')[1];
          const withFlags = (b: YargsInstance) => {
            let x = b;
            for (const f of c.flags) x = x.option(f.name, { type: f.type === 'bool' ? 'boolean' : 'string', describe: f.usage, ...(f.short ? { alias: f.short } : {}) });
            return x;
          };
          s = word ? s.command(word, c.short, withFlags) : withFlags(s);
        }
        if (head === 'completion') s = s.command('bash', 'bash completion script').command('zsh', 'zsh completion script');
        return s;
      });
    }
    return y;
  } finally {
    if (saved === undefined) delete process.env.SHELL;
    else process.env.SHELL = saved;
  }
}

/** `clientctl completion bash|zsh`: prints the yargs completion script for that shell. */
export async function runCompletion(ctx: CommandContext, tree: CommandTree): Promise<void> {
  const shell = ctx.flags.args[0];
  if (!shell) throw new CommandError('Shell not specified.', { usageOf: 'completion' });
  if (ctx.flags.args.length > 1) throw new CommandError('Too many arguments. Expected only the shell type.', { usageOf: 'completion' });
  if (shell !== 'bash' && shell !== 'zsh') throw new CommandError(`Unsupported shell type "${shell}".`, { usageOf: 'completion' });
  const y = await buildYargs(tree, [], shell);
  const logged: string[] = [];
  const original = console.log;
  console.log = (...parts: unknown[]) => void logged.push(parts.map(String).join(' '));
  try {
    y.showCompletionScript('clientctl', 'completion');
  } finally {
    console.log = original;
  }
  ctx.io.stdout(`${logged.join('\n')}\n`);
}

/** Answers the completion script's `clientctl --get-yargs-completions WORDS...` query. */
export async function runCompletionQuery(tree: CommandTree, words: string[], io: Io): Promise<void> {
  const y = await buildYargs(tree, [], io.env.SHELL?.includes('zsh') ? 'zsh' : 'bash');
  const rest = words[0] === 'clientctl' ? words.slice(1) : words;
  const completions = await y.getCompletion(rest);
  io.stdout(completions.map((c) => `${c}\n`).join(''));
}
