import { goJson, goYaml, setCurrentContext, type KubeConfig } from '@plat/client';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CommandContext } from '../context.js';
import { CommandError } from '../errors.js';
import { formatColumns } from './table.js';

const secretKeys = ['token', 'password', 'client-key-data', 'client-certificate-data'];

// Field order of client-go's api/v1 structs, which kubectl's JSON output follows.
const clusterOrder = ['server', 'tls-server-name', 'insecure-skip-tls-verify', 'certificate-authority', 'certificate-authority-data', 'proxy-url', 'disable-compression', 'extensions'];
const userOrder = ['client-certificate', 'client-certificate-data', 'client-key', 'client-key-data', 'token', 'tokenFile', 'as', 'as-uid', 'as-groups', 'as-user-extra', 'username', 'password', 'auth-provider', 'exec', 'extensions'];
const contextOrder = ['cluster', 'user', 'namespace', 'extensions'];

function ordered<T extends object>(obj: T, order: string[]): T {
  const rec = obj as Record<string, unknown>;
  const keys = [...order.filter((k) => k in rec), ...Object.keys(rec).filter((k) => !order.includes(k))];
  return Object.fromEntries(keys.map((k) => [k, rec[k]])) as T;
}

const byName = <T extends { name: string }>(list: T[]) => [...list].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
const dataKeys = ['certificate-authority-data', 'client-certificate-data', 'client-key-data'];

/** `clientctl config view`: the merged kubeconfig, secrets redacted unless --raw. */
export async function runConfigView(ctx: CommandContext): Promise<void> {
  const f = ctx.flags;
  const loaded = ctx.kubeconfig();
  let cfg: KubeConfig = JSON.parse(JSON.stringify(loaded.config)) as KubeConfig;
  if (f.bool('minify')) {
    const name = f.str('context') || cfg['current-context'];
    const c = cfg.contexts.find((x) => x.name === name);
    if (!c) throw new CommandError(name ? `cannot locate context ${name}` : 'current-context must exist in order to minify');
    cfg = {
      ...cfg,
      contexts: [c],
      clusters: cfg.clusters.filter((x) => x.name === c.context.cluster),
      users: cfg.users.filter((x) => x.name === c.context.user),
      'current-context': name,
    };
  }
  // kubectl keeps these as maps internally, so they print sorted by name.
  cfg = { ...cfg, clusters: byName(cfg.clusters), users: byName(cfg.users), contexts: byName(cfg.contexts) };
  if (f.bool('flatten')) {
    const inline = (file: string | undefined, origin: string | undefined) =>
      file ? Buffer.from(readFileSync(path.isAbsolute(file) || !origin ? file : path.join(path.dirname(origin), file))).toString('base64') : undefined;
    for (const c of cfg.clusters) {
      const ca = inline(c.cluster['certificate-authority'], loaded.origin.clusters.get(c.name));
      if (ca) {
        c.cluster['certificate-authority-data'] = ca;
        delete c.cluster['certificate-authority'];
      }
    }
    for (const u of cfg.users) {
      const origin = loaded.origin.users.get(u.name);
      const cert = inline(u.user['client-certificate'], origin);
      const key = inline(u.user['client-key'], origin);
      if (cert) {
        u.user['client-certificate-data'] = cert;
        delete u.user['client-certificate'];
      }
      if (key) {
        u.user['client-key-data'] = key;
        delete u.user['client-key'];
      }
    }
  }
  if (!f.bool('raw')) {
    for (const u of cfg.users) {
      for (const k of secretKeys) if ((u.user as Record<string, unknown>)[k]) (u.user as Record<string, unknown>)[k] = k.endsWith('-data') ? 'DATA+OMITTED' : 'REDACTED';
    }
    for (const c of cfg.clusters) {
      for (const k of dataKeys) if ((c.cluster as Record<string, unknown>)[k]) (c.cluster as Record<string, unknown>)[k] = 'DATA+OMITTED';
    }
  }
  const output = f.str('output') || 'yaml';
  if (output === 'yaml') {
    const doc = {
      apiVersion: cfg.apiVersion,
      clusters: cfg.clusters.length ? cfg.clusters.map((c) => ({ cluster: c.cluster, name: c.name })) : null,
      contexts: cfg.contexts.length ? cfg.contexts.map((c) => ({ context: c.context, name: c.name })) : null,
      'current-context': cfg['current-context'],
      kind: cfg.kind,
      preferences: cfg.preferences,
      users: cfg.users.length ? cfg.users.map((u) => ({ name: u.name, user: u.user })) : null,
    };
    ctx.io.stdout(goYaml(doc));
    return;
  }
  const doc = {
    kind: cfg.kind,
    apiVersion: cfg.apiVersion,
    preferences: cfg.preferences,
    clusters: cfg.clusters.map((c) => ({ name: c.name, cluster: ordered(c.cluster, clusterOrder) })),
    users: cfg.users.map((u) => ({ name: u.name, user: ordered(u.user, userOrder) })),
    contexts: cfg.contexts.map((c) => ({ name: c.name, context: ordered(c.context, contextOrder) })),
    'current-context': cfg['current-context'],
  };
  if (output === 'json') {
    ctx.io.stdout(`${goJson(doc, 4, false)}\n`);
    return;
  }
  ctx.io.stdout(ctx.printer().print(doc as unknown as Record<string, unknown>));
}

/** `clientctl config use-context NAME`: writes current-context into the kubeconfig file. */
export async function runUseContext(ctx: CommandContext): Promise<void> {
  const name = ctx.flags.args[0];
  if (!name || ctx.flags.args.length !== 1) throw new CommandError('Unexpected args: ' + JSON.stringify(ctx.flags.args), { usageOf: 'config use-context' });
  setCurrentContext(ctx.kubeconfig(), name);
  ctx.io.stdout(`Switched to context "${name}".\n`);
}

/** `clientctl config get-contexts [NAME...]`. */
export async function runGetContexts(ctx: CommandContext): Promise<void> {
  const f = ctx.flags;
  const cfg = ctx.kubeconfig().config;
  const output = f.str('output');
  if (output && output !== 'name') throw new CommandError(`output must be one of '' or 'name': ${output}`);
  const wanted = f.args;
  const contexts = wanted.length ? cfg.contexts.filter((c) => wanted.includes(c.name)) : [...cfg.contexts];
  contexts.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (output === 'name') {
    ctx.io.stdout(contexts.map((c) => `${c.name}\n`).join(''));
  } else {
    const rows = contexts.map((c) => [c.name === cfg['current-context'] ? '*' : '', c.name, c.context.cluster ?? '', c.context.user ?? '', c.context.namespace ?? '']);
    const all = f.bool('no-headers') ? rows : [['CURRENT', 'NAME', 'CLUSTER', 'AUTHINFO', 'NAMESPACE'], ...rows];
    ctx.io.stdout(formatColumns(all).replace(/ +$/gm, (m) => m));
  }
  const missing = wanted.filter((n) => !cfg.contexts.some((c) => c.name === n));
  if (missing.length) throw new CommandError(`context ${missing[0]} not found`);
}
