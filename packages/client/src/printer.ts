import { readFileSync } from 'node:fs';
import { ClientError } from './client-error.js';
import { GoTemplate } from './go-template.js';
import { JsonPath } from './jsonpath.js';
import { goJson, goYaml, resourceName, stripManagedFields } from './object-printer.js';

/** kubectl's printer flags: `-o`, `--template`, `--allow-missing-template-keys`, `--show-managed-fields`. */
export interface PrintFlags {
  output?: string;
  template?: string;
  allowMissingTemplateKeys?: boolean;
  showManagedFields?: boolean;
}

/** Prints one object per call; `operation` ("patched", "created"...) is used by the name printer only. */
export interface ResourcePrinter {
  readonly format: string;
  print(obj: Record<string, unknown>, operation?: string): string;
}

export const allowedFormats = [
  'go-template', 'go-template-file', 'json', 'jsonpath', 'jsonpath-as-json', 'jsonpath-file', 'name', 'template', 'templatefile', 'yaml',
];

function readTemplateFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new ClientError('UsageError', `error reading --template ${file}, ${(err as Error).message.replace(/^ENOENT: no such file or directory, open '(.*)'$/, 'open $1: no such file or directory')}`);
  }
}

/** kubectl's NamePrinter: a line per object, one per item for a list. */
function nameLines(obj: Record<string, unknown>, suffix: string): string {
  if (Array.isArray(obj.items)) return (obj.items as Record<string, unknown>[]).map((item) => `${resourceName(item)}${suffix}\n`).join('');
  return `${resourceName(obj)}${suffix}\n`;
}

/** True when `-o` names a format (with or without `=ARG`) that the printers know. */
export function isKnownFormat(output: string): boolean {
  const eq = output.indexOf('=');
  return allowedFormats.includes(eq >= 0 ? output.slice(0, eq) : output);
}

/**
 * Builds the printer kubectl would: json/yaml (managedFields stripped unless asked), name, and the
 * template printers, whose template comes from `-o FORMAT=TEMPLATE` or `--template`. With no `-o`
 * the name printer with the operation is used, and `--template` alone means go-template.
 */
export function createPrinter(flags: PrintFlags): ResourcePrinter {
  let output = flags.output ?? '';
  let template = flags.template ?? '';
  const eq = output.indexOf('=');
  if (eq >= 0) {
    template = output.slice(eq + 1);
    output = output.slice(0, eq);
  }
  if (!output && template) output = 'go-template';
  // Only the JSON and YAML printers drop managedFields (kubectl's OmitManagedFieldsPrinter);
  // templates see the object whole.
  const tidy = (o: Record<string, unknown>) => (flags.showManagedFields ? o : stripManagedFields(o));
  const allowMissingKeys = flags.allowMissingTemplateKeys ?? true;
  switch (output) {
    case '':
      return { format: '', print: (o, op) => nameLines(o, op ? ` ${op}` : '') };
    case 'name':
      return { format: 'name', print: (o) => nameLines(o, '') };
    case 'json':
      return { format: 'json', print: (o) => `${goJson(tidy(o), 4)}\n` };
    case 'yaml': {
      let count = 0;
      return { format: 'yaml', print: (o) => `${count++ > 0 ? '---\n' : ''}${goYaml(tidy(o))}` };
    }
    case 'go-template':
    case 'go-template-file':
    case 'template':
    case 'templatefile': {
      if (!template) throw new ClientError('UsageError', 'template format specified but no template given');
      const text = output.endsWith('file') ? readTemplateFile(template) : template;
      const compiled = new GoTemplate(text, { allowMissingKeys });
      return { format: output, print: (o) => compiled.execute(o) };
    }
    case 'jsonpath':
    case 'jsonpath-as-json':
    case 'jsonpath-file': {
      if (!template) throw new ClientError('UsageError', 'template format specified but no template given');
      const text = output === 'jsonpath-file' ? readTemplateFile(template) : template;
      const compiled = new JsonPath(text, { allowMissingKeys, asJson: output === 'jsonpath-as-json' });
      return { format: output, print: (o) => compiled.execute(o) };
    }
    default:
      throw new ClientError(
        'UsageError',
        `unable to match a printer suitable for the output format "${output}", allowed formats are: ${allowedFormats.join(',')}`,
      );
  }
}
