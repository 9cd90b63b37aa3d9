import { splitRequestTarget } from './context.js';

describe('splitRequestTarget', () => {
  it.each([
    ['/apis/certificates.plat.io/v1alpha1/clustertrustbundles/a', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/a', ''],
    ['/apis/g/v1/r?watch=true&labelSelector=a%3Db', '/apis/g/v1/r', 'watch=true&labelSelector=a%3Db'],
    ['/version?', '/version', ''],
    ['/', '/', ''],
  ])('splits the plain target %s without the URL parser', (target, path, query) => {
    const got = splitRequestTarget(target);
    expect(got).toEqual({ path, query });
  });

  it.each([
    ['/apis/../version', '/version'],
    ['/apis/./g', '/apis/g'],
    ['/a%2Fb/c', '/a%2Fb/c'],
    ['/a b', '/a%20b'],
    ['//evil/x', '/x'],
    ['/x#frag', '/x'],
  ])('answers what new URL() answers for %s', (target, path) => {
    const got = splitRequestTarget(target);
    expect(got.path).toBe(path);
    expect(got.path).toBe(new URL(target, 'https://localhost').pathname);
    expect(got.url).toBeInstanceOf(URL);
  });
});
