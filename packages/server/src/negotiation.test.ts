import { negotiateOutput, outputNegotiator, parseAccept } from './negotiation.js';

describe('content negotiation', () => {
  it('orders clauses by quality, keeping the client order among equals', () => {
    expect(parseAccept('application/yaml;q=0.5, application/json, */*;q=0.1').map((c) => c.type)).toEqual([
      'application/json',
      'application/yaml',
      '*/*',
    ]);
  });

  it('picks Table for kubectl and falls back to JSON where Table is not offered', () => {
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
    expect(negotiateOutput(accept, { allowedAs: ['Table'] })).toMatchObject({ as: 'Table', group: 'meta.k8s.io', version: 'v1' });
    expect(negotiateOutput(accept, { allowedAs: [] })).toEqual({ format: 'json', contentType: 'application/json' });
  });

  it('answers 406 when nothing is acceptable', () => {
    expect(() => negotiateOutput('application/vnd.kubernetes.protobuf', { allowedAs: [] })).toThrow('only the following media types are accepted');
    expect(() => negotiateOutput('application/json;as=Table;g=other.io;v=v1', { allowedAs: ['Table'] })).toThrow();
  });

  it('serves JSON for no header, wildcards and the watch stream type', () => {
    for (const h of [undefined, '*/*', 'application/*', 'application/json;stream=watch']) {
      expect(negotiateOutput(h, { allowedAs: [] }).format).toBe('json');
    }
  });

  it('remembers answers per header and allowed kinds, but never a 406, and keeps them frozen', () => {
    const accept = 'application/yaml;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json';
    const first = negotiateOutput(accept, { allowedAs: ['PartialObjectMetadata'] });
    expect(first).toEqual({ format: 'yaml', as: 'PartialObjectMetadata', group: 'meta.k8s.io', version: 'v1', contentType: 'application/yaml;g=meta.k8s.io;v=v1;as=PartialObjectMetadata' });
    expect(negotiateOutput(accept, { allowedAs: ['PartialObjectMetadata'] })).toBe(first);
    // The same header where that kind is not offered is a different answer.
    expect(negotiateOutput(accept, { allowedAs: [] })).toEqual({ format: 'json', contentType: 'application/json' });
    expect(Object.isFrozen(first)).toBe(true);
    for (let i = 0; i < 2; i++) expect(() => negotiateOutput('text/html', { allowedAs: [] })).toThrow('only the following media types are accepted');
  });

  it('answers long headers without remembering them, and stays right after many distinct headers', () => {
    const long = `${'application/x-nothing, '.repeat(40)}application/yaml`;
    expect(negotiateOutput(long, { allowedAs: [] }).format).toBe('yaml');
    for (let i = 0; i < 600; i++) expect(negotiateOutput(`application/json;x=${i}`, { allowedAs: [] }).format).toBe('json');
    expect(negotiateOutput('application/yaml', { allowedAs: [] }).format).toBe('yaml');
  });

  it("answers through an endpoint's negotiator as negotiateOutput does, remembering by the header alone", () => {
    const forGet = outputNegotiator(['Table', 'PartialObjectMetadata']);
    const forOther = outputNegotiator([]);
    const headers = [
      undefined,
      'application/json',
      'application/yaml',
      'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
      'application/yaml;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json',
      `${'application/x-nothing, '.repeat(40)}application/yaml`,
    ];
    // Twice over, each header after a different one and then right after itself (the answer remembered last).
    for (const h of [...headers, ...headers.flatMap((x) => [x, x])]) {
      expect(forGet(h)).toEqual(negotiateOutput(h, { allowedAs: ['Table', 'PartialObjectMetadata'] }));
      expect(forOther(h)).toEqual(negotiateOutput(h, { allowedAs: [] }));
    }
    // A 406 is not remembered as the last answer: the header before it still answers as before.
    expect(forGet('application/yaml').format).toBe('yaml');
    expect(() => forGet('text/html')).toThrow('only the following media types are accepted');
    expect(forGet('application/yaml').format).toBe('yaml');
    // Each negotiator has its own memo: the same header is a Table for one and JSON for the other.
    const table = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
    expect(forGet(table)).toBe(forGet(table));
    expect(forGet(table).as).toBe('Table');
    expect(forOther(table).as).toBeUndefined();
    expect(Object.isFrozen(forGet(table))).toBe(true);
    for (let i = 0; i < 2; i++) expect(() => forGet('text/html')).toThrow('only the following media types are accepted');
    for (let i = 0; i < 600; i++) expect(forOther(`application/json;x=${i}`).format).toBe('json');
    expect(forOther('application/yaml').format).toBe('yaml');
  });
});
