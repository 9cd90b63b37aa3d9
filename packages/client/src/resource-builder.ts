import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ClientError } from './client-error.js';
import { readObjectStream } from './object-stream.js';
import { aggregate, type KubeObject } from './unstructured.js';

/** One object read from an input, with where it came from (kubectl's `resource.Info`). */
export interface ResourceInfo {
  source: string;
  object: KubeObject;
}

export interface BuilderOptions {
  filenames?: string[];
  recursive?: boolean;
  kustomize?: string;
  /** Reads standard input for `-f -`. */
  readStdin?: () => Promise<string>;
  /** Fetches a URL for `-f https://...`; defaults to the platform fetch. */
  fetchUrl?: (url: string) => Promise<string>;
  signal?: AbortSignal;
  /** Collects the errors of inputs that cannot be read or decoded instead of throwing the first. */
  readErrors?: Error[];
}

export const fileExtensions = ['.json', '.yaml', '.yml'];

function walkDirectory(dir: string, recursive: boolean, into: string[]): void {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (recursive) walkDirectory(full, recursive, into);
    } else if (fileExtensions.includes(path.extname(e.name))) into.push(full);
  }
}

/** Reads a file; failures in Go's words (`open f.yaml: permission denied`). */
function readFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === 'EACCES' ? 'permission denied' : code === 'ENOENT' ? 'no such file or directory' : code === 'EISDIR' ? 'is a directory' : (err as Error).message;
    throw new ClientError('PathNotFound', `open ${file}: ${reason}`);
  }
}

async function fetchText(url: string, signal?: AbortSignal): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, { signal });
  } catch (err) {
    const cause = (err as { cause?: { message?: string } }).cause;
    throw new ClientError('URLFailed', `unable to read URL "${url}", ${cause?.message ?? (err as Error).message}`);
  }
  if (res.status !== 200) {
    throw new ClientError('URLFailed', `unable to read URL "${url}", server reported ${res.status} ${res.statusText}, status code=${res.status}`);
  }
  return res.text();
}

/** One input of the builder, in the order of the flags (kubectl's visitors). */
type Input = { kind: 'stdin' } | { kind: 'url'; url: string } | { kind: 'file'; path: string };

/**
 * The inputs `-f` names, checked before any is read as kubectl's FilenameParam checks them: a
 * missing path, or a first path that holds no .json, .yaml or .yml file, is an error; all such
 * errors are reported together and nothing is read.
 */
function expandInputs(filenames: string[], recursive: boolean): Input[] {
  const inputs: Input[] = [];
  const errors: Error[] = [];
  for (const name of filenames) {
    if (name === '-') {
      inputs.push({ kind: 'stdin' });
      continue;
    }
    if (/^https?:\/\//.test(name)) {
      inputs.push({ kind: 'url', url: name });
      continue;
    }
    let st;
    try {
      st = statSync(name);
    } catch {
      errors.push(new ClientError('PathNotFound', `the path "${name}" does not exist`));
      continue;
    }
    const files: string[] = [];
    if (st.isDirectory()) walkDirectory(name, recursive, files);
    else files.push(name);
    for (const file of files) inputs.push({ kind: 'file', path: file });
    if (inputs.length === 0 && errors.length === 0) {
      errors.push(new ClientError('PathNotFound', `error reading [${name}]: recognized file extensions are [${fileExtensions.join(' ')}]`));
    }
  }
  if (errors.length) throw errors.length === 1 ? errors[0] : aggregate(errors);
  return inputs;
}

/**
 * kubectl's resource builder for `-f`, `-R` and `-k`: files, directories (only .json, .yaml and
 * .yml files; subfolders with -R), http(s) URLs and `-` for standard input. With `readErrors`,
 * an input that cannot be read or decoded adds its errors there and reading goes on (kubectl's
 * ContinueOnError: the command reports them after the errors of the objects it visited);
 * without, the first such error is thrown.
 */
export async function buildResources(options: BuilderOptions): Promise<ResourceInfo[]> {
  const filenames = options.filenames ?? [];
  if (options.kustomize && (filenames.length > 0 || options.recursive)) {
    throw new ClientError('UsageError', 'only one of -f or -k can be specified');
  }
  const onError = (err: Error) => {
    if (!options.readErrors) throw err;
    options.readErrors.push(err);
  };
  if (options.kustomize) {
    const { runKustomization } = await import('./kustomize.js');
    try {
      return (await runKustomization(options.kustomize)).map((object) => ({ source: options.kustomize!, object }));
    } catch (err) {
      onError(err as Error);
      return [];
    }
  }
  const infos: ResourceInfo[] = [];
  for (const input of expandInputs(filenames, !!options.recursive)) {
    let source: string;
    let text: string;
    try {
      if (input.kind === 'stdin') {
        if (!options.readStdin) throw new ClientError('UsageError', 'reading from standard input is not available');
        source = 'STDIN';
        text = await options.readStdin();
      } else if (input.kind === 'url') {
        source = input.url;
        text = options.fetchUrl ? await options.fetchUrl(input.url) : await fetchText(input.url, options.signal);
      } else {
        source = input.path;
        text = readFile(input.path);
      }
    } catch (err) {
      onError(err as Error);
      continue;
    }
    for (const object of readObjectStream(text, source, onError)) infos.push({ source, object });
  }
  return infos;
}
