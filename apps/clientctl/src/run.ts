import { commandGroups, commands, type CommandSpec } from './command-table.js';
import { CommandContext, clientVersion } from './context.js';
import { CommandError, errorText } from './errors.js';
import { FlagError, Flags, flagUsage, parseFlags, type FlagSpec } from './flags.js';
import { globalFlags } from './global-flags.js';
import type { Io } from './io.js';

/** Finds the command words (`patch`, `auth can-i`...) among the arguments, skipping flags and their values. */
function findCommand(argv: readonly string[]): { spec?: CommandSpec; rest: string[]; words: string[] } {
  const takesValue = new Set<string>();
  for (const f of globalFlags) {
    if (f.type !== 'bool' && f.bareValue === undefined) {
      takesValue.add(`--${f.name}`);
      if (f.short) takesValue.add(`-${f.short}`);
    }
  }
  const positions: number[] = [];
  for (let i = 0; i < argv.length && positions.length < 2; i++) {
    const a = argv[i];
    if (a === '--') break;
    if (a.startsWith('-')) {
      if (takesValue.has(a)) i++;
      continue;
    }
    positions.push(i);
    if (!(a in commandGroups)) break;
  }
  const words = positions.map((i) => argv[i]);
  for (const n of [2, 1]) {
    const path = words.slice(0, n).join(' ');
    const spec = commands.find((c) => c.path === path);
    if (spec) {
      const drop = new Set(positions.slice(0, n));
      return { spec, rest: argv.filter((_a, i) => !drop.has(i)), words: words.slice(0, n) };
    }
  }
  return { rest: [...argv], words };
}

function commandHelp(spec: CommandSpec): string {
  const lines = [`${spec.short}.`, ''];
  if (spec.examples) lines.push('Examples:', spec.examples, '');
  lines.push('Options:', flagUsage(spec.flags), 'Usage:', `  ${spec.usage}`, '', 'Use "clientctl options" for a list of global command-line options (applies to all commands).', '');
  return lines.join('\n');
}

function rootHelp(): string {
  const lines = ['clientctl controls the plat control plane.', '', 'Commands:'];
  for (const c of commands) lines.push(`  ${c.path.padEnd(22)}${c.short}`);
  lines.push('', 'Usage:', '  clientctl [flags] [options]', '', 'Use "clientctl <command> --help" for more information about a given command.', 'Use "clientctl options" for a list of global command-line options (applies to all commands).', '');
  return lines.join('\n');
}

function rawVersion(version: string): string {
  return `version.Info{Major:"${clientVersion.major}", Minor:"${clientVersion.minor}", GitVersion:"${version}", GitCommit:"", GitTreeState:"", BuildDate:"", GoVersion:"${process.version}", Compiler:"node", Platform:"${clientVersion.platform}"}\n`;
}

/** Runs one command line and returns the exit code. */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  if (argv[0] === '--get-yargs-completions') {
    const { runCompletionQuery } = await import('./commands/completion.js');
    await runCompletionQuery({ commands, commandGroups }, argv.slice(1), io);
    return 0;
  }
  const found = findCommand(argv);
  const name = found.spec?.path ?? found.words[0] ?? '';
  const helpFlag: FlagSpec = { name: 'help', short: 'h', type: 'bool', usage: `help for ${name || 'clientctl'}` };
  let ctx: CommandContext | undefined;
  let stopProfile: (() => Promise<void>) | undefined;
  try {
    if (!found.spec && found.words.length) {
      if (found.words[0] === 'options') {
        io.stdout(`The following options can be passed to any command:\n\n${flagUsage(globalFlags)}`);
        return 0;
      }
      if (found.words[0] in commandGroups && found.words.length === 1) {
        io.stdout(`${commandGroups[found.words[0]]}.\n\nAvailable Commands:\n${commands.filter((c) => c.path.startsWith(`${found.words[0]} `)).map((c) => `  ${c.path.split(' ')[1].padEnd(14)}${c.short}`).join('\n')}\n`);
        return 0;
      }
      throw new CommandError(`unknown command "${found.words.join(' ')}" for "clientctl"`, { raw: false });
    }
    const specs = [...globalFlags, ...(found.spec?.flags ?? []), helpFlag];
    const flags = new Flags(parseFlags(found.rest, specs));
    ctx = new CommandContext(io, flags, name);
    const version = flags.str('version');
    if (version === 'true') {
      io.stdout(`Client Version: ${clientVersion.gitVersion}\n`);
      return 0;
    }
    if (version === 'raw') {
      io.stdout(rawVersion(clientVersion.gitVersion));
      return 0;
    }
    if (version !== 'false') {
      if (!/^v\d+\.\d+\.\d+/.test(version)) throw new FlagError(`invalid argument "${version}" for "--version" flag: version "${version}" is not of the form vX.Y.Z`);
      ctx.reportedVersion = version;
    }
    if (flags.bool('help') || !found.spec) {
      io.stdout(found.spec ? commandHelp(found.spec) : rootHelp());
      return 0;
    }
    // kubectl loads the client configuration before any command, even `patch --local`.
    if (!name.startsWith('config ') && !name.startsWith('completion')) ctx.kubeconfig();
    const profile = flags.str('profile');
    if (profile !== 'none') {
      const { startProfile } = await import('./profile.js');
      stopProfile = await startProfile(profile, flags.str('profile-output'), io);
    }
    const runCommand = await found.spec.load();
    if (flags.bool('match-server-version') && !found.spec.offline?.(ctx)) {
      const res = await ctx.rest().request<{ gitVersion?: string }>({ path: '/version' });
      const server = res.body.gitVersion ?? '';
      if (server !== ctx.reportedVersion) {
        throw new CommandError(`server version (${server}) differs from client version (${ctx.reportedVersion})!`);
      }
    }
    await runCommand(ctx);
    if (flags.bool('warnings-as-errors') && ctx.warnings > 0) {
      throw new CommandError(`${ctx.warnings} warning${ctx.warnings === 1 ? '' : 's'} received`);
    }
    return 0;
  } catch (err) {
    if (err instanceof CommandError && err.options.exitCode !== undefined && err.message === '') return err.options.exitCode;
    const cause = (err as { cause?: { partial?: string; raw?: string; object?: string } }).cause;
    if (cause && typeof cause === 'object' && 'raw' in cause && (err as { code?: string }).code === 'TemplateExecute') {
      const m = /^error executing template "(.*)": (.*)$/s.exec((err as Error).message);
      io.stdout(`${cause.partial ?? ''}Error executing template: ${m?.[2] ?? ''}. Printing more information for debugging the template:\n\ttemplate was:\n\t\t${m ? JSON.parse(`"${m[1]}"`) : ''}\n\traw data was:\n\t\t${cause.raw}\n\tobject given to template engine was:\n\t\t${cause.object}\n\n`);
    }
    io.stderr(errorText(err, name));
    return err instanceof CommandError && err.options.exitCode !== undefined ? err.options.exitCode : 1;
  } finally {
    if (stopProfile) await stopProfile();
    await ctx?.close();
  }
}

