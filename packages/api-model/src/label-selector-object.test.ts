import { labelSelectorAsSelector, labelSelectorObjectSchema, parseToLabelSelectorObject, validateLabelSelectorObject } from './label-selector-object.js';

describe('meta/v1 LabelSelector', () => {
  it('converts matchLabels and matchExpressions into one compiled selector', () => {
    const sel = labelSelectorAsSelector(
      labelSelectorObjectSchema.parse({
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['b', 'a'] },
          { key: 'legacy', operator: 'DoesNotExist' },
          { key: 'env', operator: 'NotIn', values: ['prod'] },
          { key: 'team', operator: 'Exists' },
        ],
      }),
    );
    expect(sel.toString()).toBe('app=web,env notin (prod),!legacy,team,tier in (a,b)');
    expect(sel.matches({ app: 'web', tier: 'a', team: 'x' })).toBe(true);
    expect(sel.matches({ app: 'web', tier: 'a', team: 'x', legacy: '' })).toBe(false);
  });

  it('matches nothing when absent and everything when empty', () => {
    expect(labelSelectorAsSelector(null).matches({})).toBe(false);
    expect(labelSelectorAsSelector({}).matches({ a: 'b' })).toBe(true);
  });

  it('rejects unknown operators and invalid requirements with Kubernetes\' messages', () => {
    expect(() => labelSelectorAsSelector({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] })).toThrow(
      '"Gt" is not a valid label selector operator',
    );
    expect(() => labelSelectorAsSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] })).toThrow(
      "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty",
    );
  });

  it('validates like ValidateLabelSelector', () => {
    expect(
      validateLabelSelectorObject(
        {
          matchLabels: { ok: 'yes' },
          matchExpressions: [
            { key: 'a', operator: 'In' },
            { key: 'b', operator: 'Exists', values: ['x'] },
            { key: 'c', operator: 'Like' },
            { key: '-d', operator: 'Exists' },
          ],
        },
        'spec.selector',
      ).map(String),
    ).toEqual([
      "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      'spec.selector.matchExpressions[2].operator: Invalid value: "Like": not a valid selector operator',
      `spec.selector.matchExpressions[3].key: Invalid value: "-d": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ]);
  });

  it('parses a selector string into an object as ParseToLabelSelector does', () => {
    const obj = parseToLabelSelectorObject('app=web,tier in (b,a),!legacy,team,env notin (prod),zone==eu,owner!=bob');
    expect(obj).toEqual({
      matchLabels: { app: 'web', zone: 'eu' },
      matchExpressions: [
        { key: 'env', operator: 'NotIn', values: ['prod'] },
        { key: 'legacy', operator: 'DoesNotExist' },
        { key: 'owner', operator: 'NotIn', values: ['bob'] },
        { key: 'team', operator: 'Exists' },
        { key: 'tier', operator: 'In', values: ['a', 'b'] },
      ],
    });
    // Round trip: the object selects what the string selects.
    expect(labelSelectorAsSelector(obj).toString()).toBe('app=web,env notin (prod),!legacy,owner notin (bob),team,tier in (a,b),zone=eu');
    expect(parseToLabelSelectorObject('')).toEqual({});
  });

  it('refuses what a LabelSelector object cannot hold, and syntax errors', () => {
    expect(() => parseToLabelSelectorObject('replicas>3')).toThrow('"gt" isn\'t supported in label selectors');
    expect(() => parseToLabelSelectorObject('a in (b')).toThrow();
  });
});
