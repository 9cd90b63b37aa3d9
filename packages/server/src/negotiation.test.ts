import { negotiateOutput, parseAccept } from './negotiation.js';

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
});
