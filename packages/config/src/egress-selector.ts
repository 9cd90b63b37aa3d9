/**
 * EgressSelectorConfiguration: decoding, validation and the loaded (typed) form.
 *
 * Rules and messages follow Kubernetes' `ValidateEgressSelectorConfiguration`, reported at the
 * real paths of the file (`egressSelections[0].connection.transport.tcp.url`), plus the spec's
 * additions: `master` is the deprecated name of `controlplane` (a warning, and not both), tcp URLs
 * are scheme://host:port, udsName is an absolute path without `unix://`, and `tlsServerName` is
 * accepted as current Kubernetes accepts it. Relative TLS file paths resolve against `cwd`.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { FieldError, FieldErrorType, fieldError, FieldPath } from '@plat/api-model';
import { decodeDocument, fileError, type LoadResult } from './document.js';
import { egressSelectorConfigurationSchema } from './schemas.js';

export type EgressSelectionName = 'controlplane' | 'etcd' | 'cluster';
export type ProxyProtocol = 'Direct' | 'HTTPConnect' | 'GRPC';

export interface TLSConfig {
  /** Absolute path of the CA bundle; absent means the system roots. */
  caBundle?: string;
  clientKey: string;
  clientCert: string;
  tlsServerName?: string;
}

export interface Transport {
  tcp?: { url: string; tlsConfig?: TLSConfig };
  uds?: { udsName: string };
}

export interface EgressSelection {
  /** `master` is loaded as `controlplane`. */
  name: EgressSelectionName;
  connection: { proxyProtocol: ProxyProtocol; transport?: Transport };
}

export interface EgressSelectorConfiguration {
  apiVersion: string;
  kind: 'EgressSelectorConfiguration';
  egressSelections: EgressSelection[];
}

export interface EgressSelectorLoadOptions {
  /** Directory that relative TLS file paths resolve against; defaults to process.cwd(). */
  cwd?: string;
}

const validNames = ['cluster', 'controlplane', 'etcd', 'master'];
const protocols = ['Direct', 'HTTPConnect', 'GRPC'];

interface TcpInput {
  url?: string;
  tlsConfig?: { caBundle?: string; clientKey?: string; clientCert?: string; tlsServerName?: string };
}

function validateTCP(tcp: TcpInput, path: FieldPath, cwd: string, errs: FieldError[]): Transport['tcp'] {
  const url = tcp.url ?? '';
  const urlPath = path.child('url');
  const tls = tcp.tlsConfig;
  const tlsPath = path.child('tlsConfig');
  if (url === '') {
    errs.push(fieldError.required(urlPath));
    return undefined;
  }
  const isHTTP = url.startsWith('http://');
  const isHTTPS = url.startsWith('https://');
  if (!isHTTP && !isHTTPS) {
    errs.push(fieldError.invalid(urlPath, url, 'supported connection protocols are http:// and https://'));
    return undefined;
  }
  let hostPortOk = false;
  try {
    const parsed = new URL(url);
    hostPortOk = parsed.hostname !== '' && /:\d+$/.test(parsed.host) && (parsed.pathname === '/' || parsed.pathname === '') && !url.endsWith('/');
    // `new URL` drops a default port (https://h:443); the text itself must name a port.
    if (!hostPortOk && /^https?:\/\/[^/?#]+:\d+\/?$/.test(url)) hostPortOk = parsed.hostname !== '';
  } catch {
    hostPortOk = false;
  }
  if (!hostPortOk) errs.push(fieldError.invalid(urlPath, url, 'must be of the form scheme://host:port'));

  if (isHTTP) {
    const hasTLS = tls && Object.values(tls).some((v) => v !== undefined && v !== '');
    if (hasTLS) errs.push(fieldError.forbidden(tlsPath, 'TLSConfig config should not be present when using HTTP'));
    return { url };
  }
  if (!tls) {
    errs.push(fieldError.required(tlsPath, 'TLSConfig must be present when using HTTPS'));
    return undefined;
  }
  const out: TLSConfig = { clientKey: '', clientCert: '' };
  const check = (value: string, field: 'caBundle' | 'clientCert' | 'clientKey', missing: string) => {
    const abs = resolve(cwd, value);
    if (!existsSync(abs)) errs.push(fieldError.invalid(tlsPath.child(field), value, missing));
    return abs;
  };
  if (tls.caBundle) out.caBundle = check(tls.caBundle, 'caBundle', 'TLS config ca bundle does not exist');
  if (!tls.clientCert) errs.push(fieldError.required(tlsPath.child('clientCert'), 'Using TLS requires clientCert'));
  else out.clientCert = check(tls.clientCert, 'clientCert', 'TLS client cert does not exist');
  if (!tls.clientKey) errs.push(fieldError.required(tlsPath.child('clientKey'), 'Using TLS requires clientKey'));
  else out.clientKey = check(tls.clientKey, 'clientKey', 'TLS client key does not exist');
  if (tls.tlsServerName) out.tlsServerName = tls.tlsServerName;
  return { url, tlsConfig: out };
}

function validateUDS(uds: { udsName?: string }, path: FieldPath, errs: FieldError[]): Transport['uds'] {
  const name = uds.udsName ?? '';
  const p = path.child('udsName');
  if (name === '') {
    errs.push(fieldError.required(p, 'UDSName should be present for UDS connections'));
    return undefined;
  }
  if (name.startsWith('unix://')) {
    errs.push(fieldError.invalid(p, name, 'must be a socket path without the unix:// prefix'));
    return undefined;
  }
  if (!isAbsolute(name)) {
    errs.push(fieldError.invalid(p, name, 'must be an absolute path'));
    return undefined;
  }
  return { udsName: name };
}

/**
 * Decodes and validates an EgressSelectorConfiguration file. An empty file is an error.
 */
export function loadEgressSelectorConfiguration(
  data: string | Uint8Array,
  options: EgressSelectorLoadOptions = {},
): LoadResult<EgressSelectorConfiguration> {
  const cwd = options.cwd ?? process.cwd();
  const decoded = decodeDocument(data, 'EgressSelectorConfiguration', egressSelectorConfigurationSchema);
  if (!decoded.ok) return { ok: false, errors: decoded.errors, warnings: [] };
  if (!decoded.value) {
    return {
      ok: false,
      errors: [fileError('the file is empty: an EgressSelectorConfiguration needs apiVersion, kind and egressSelections')],
      warnings: [],
    };
  }
  const errs: FieldError[] = [];
  const warnings: string[] = [];
  const selections: EgressSelection[] = [];
  const seen = new Map<string, string>();
  const root = FieldPath.root('egressSelections');
  (decoded.value.egressSelections ?? []).forEach((selection, i) => {
    const p = root.index(i);
    const namePath = p.child('name');
    const written = selection.name ?? '';
    const before = errs.length;
    let name: EgressSelectionName | undefined;
    if (written === '') errs.push(fieldError.required(namePath));
    else {
      const lower = written.toLowerCase();
      if (!validNames.includes(lower)) errs.push(fieldError.notSupported(namePath, written, validNames));
      else {
        const canonical = (lower === 'master' ? 'controlplane' : lower) as EgressSelectionName;
        if (lower === 'master') warnings.push(`${namePath.toString()}: "master" is deprecated, use "controlplane"`);
        const earlier = seen.get(canonical);
        if (earlier !== undefined) {
          errs.push(
            earlier === lower
              ? fieldError.duplicate(namePath, written)
              : new FieldError(FieldErrorType.Duplicate, namePath.toString(), written, '"master" and "controlplane" name the same egress selection'),
          );
        } else {
          seen.set(canonical, lower);
          name = canonical;
        }
      }
    }

    const cPath = p.child('connection');
    const protocol = selection.connection?.proxyProtocol ?? '';
    const transportInput = selection.connection?.transport;
    const tPath = cPath.child('transport');
    let transport: Transport | undefined;
    if (protocol === '') errs.push(fieldError.required(cPath.child('proxyProtocol')));
    else if (!protocols.includes(protocol)) errs.push(fieldError.notSupported(cPath.child('proxyProtocol'), protocol, protocols));
    else if (protocol === 'Direct') {
      if (transportInput) errs.push(fieldError.forbidden(tPath, 'Transport config should be absent for direct connect'));
    } else if (!transportInput) {
      errs.push(fieldError.required(tPath, `transport must be set for ${protocol}`));
    } else if (protocol === 'GRPC') {
      if (transportInput.tcp) errs.push(fieldError.forbidden(tPath.child('tcp'), 'TCP transport is not supported with GRPC'));
      if (!transportInput.uds) errs.push(fieldError.required(tPath.child('uds'), 'UDS must be set with GRPC'));
      else {
        const uds = validateUDS(transportInput.uds, tPath.child('uds'), errs);
        if (uds) transport = { uds };
      }
    } else if (transportInput.tcp && transportInput.uds) {
      errs.push(fieldError.forbidden(tPath, 'TCP and UDS cannot both be set'));
    } else if (!transportInput.tcp && !transportInput.uds) {
      errs.push(fieldError.required(tPath, 'One of TCP or UDS must be set'));
    } else if (transportInput.tcp) {
      const tcp = validateTCP(transportInput.tcp, tPath.child('tcp'), cwd, errs);
      if (tcp) transport = { tcp };
    } else if (transportInput.uds) {
      const uds = validateUDS(transportInput.uds, tPath.child('uds'), errs);
      if (uds) transport = { uds };
    }
    if (errs.length === before && name) {
      const connection: EgressSelection['connection'] = { proxyProtocol: protocol as ProxyProtocol };
      if (transport) connection.transport = transport;
      selections.push({ name, connection });
    }
  });
  if (errs.length > 0) return { ok: false, errors: errs, warnings };
  return {
    ok: true,
    config: { apiVersion: decoded.value.apiVersion!, kind: 'EgressSelectorConfiguration', egressSelections: selections },
    warnings,
  };
}
