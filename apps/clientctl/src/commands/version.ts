import { goJson, goYaml } from '@plat/client';
import { clientVersion, type CommandContext } from '../context.js';
import { CommandError } from '../errors.js';

/** `clientctl version`: client version, and the server's from /version unless --client. */
export async function runVersion(ctx: CommandContext): Promise<void> {
  const f = ctx.flags;
  const output = f.str('output');
  if (output && output !== 'json' && output !== 'yaml') throw new CommandError(`--output must be 'yaml' or 'json'`);
  const client = { ...clientVersion, gitVersion: ctx.reportedVersion };
  let server: Record<string, unknown> | undefined;
  let serverError: unknown;
  if (!f.bool('client')) {
    try {
      server = (await ctx.rest().request<Record<string, unknown>>({ path: '/version' })).body;
    } catch (err) {
      serverError = err;
    }
  }
  if (output) {
    const doc = { clientVersion: client, ...(server ? { serverVersion: server } : {}) };
    ctx.io.stdout(output === 'json' ? `${goJson(doc, 2, false)}\n` : goYaml(doc, false));
  } else {
    ctx.io.stdout(`Client Version: ${client.gitVersion}\n`);
    if (server) ctx.io.stdout(`Server Version: ${String(server.gitVersion ?? '')}\n`);
  }
  if (serverError) throw serverError;
}
