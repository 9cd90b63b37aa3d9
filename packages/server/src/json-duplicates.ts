/**
 * Finds keys that occur more than once in the same JSON object and returns their paths
 * (`metadata.labels.a`, `items[0].name`), the way Kubernetes' strict decoder reports
 * `duplicate field "<path>"`. The text must already be valid JSON (JSON.parse succeeded).
 */
export function findDuplicateJsonKeys(text: string): string[] {
  const duplicates: string[] = [];
  let i = 0;

  const skipWs = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  };
  const readString = (): string => {
    const start = i;
    i++; // opening quote
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

  const value = (path: string, depth: number): void => {
    if (depth > 10_000) return;
    skipWs();
    const c = text[i];
    if (c === '{') {
      i++;
      const seen = new Set<string>();
      skipWs();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        skipWs();
        const key = readString();
        const childPath = join(path, key);
        if (seen.has(key)) duplicates.push(childPath);
        seen.add(key);
        skipWs();
        i++; // colon
        value(childPath, depth + 1);
        skipWs();
        if (text[i] === ',') {
          i++;
          continue;
        }
        i++; // closing brace
        return;
      }
    }
    if (c === '[') {
      i++;
      skipWs();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let index = 0; ; index++) {
        value(`${path}[${index}]`, depth + 1);
        skipWs();
        if (text[i] === ',') {
          i++;
          continue;
        }
        i++;
        return;
      }
    }
    if (c === '"') {
      readString();
      return;
    }
    // number, true, false, null
    while (i < text.length && !',}] \n\r\t'.includes(text[i]!)) i++;
  };

  value('', 0);
  return [...new Set(duplicates)];
}
