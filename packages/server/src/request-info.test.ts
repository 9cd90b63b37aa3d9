import { requestInfoFor } from './request-info.js';

const info = (method: string, url: string) => {
  const u = new URL(url, 'https://h');
  return requestInfoFor(method, u.pathname, u.searchParams);
};

describe('requestInfoFor', () => {
  it.each([
    ['GET', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles', 'list', ''],
    ['GET', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles?watch=true', 'watch', ''],
    ['GET', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles?watch=1', 'watch', ''],
    ['GET', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles?watch=false', 'list', ''],
    ['GET', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/a', 'get', 'a'],
    ['GET', '/apis/certificates.plat.io/v1alpha1/watch/clustertrustbundles/a', 'watch', 'a'],
    ['POST', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles', 'create', ''],
    ['PUT', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/a', 'update', 'a'],
    ['PATCH', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/a', 'patch', 'a'],
    ['DELETE', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles/a', 'delete', 'a'],
    ['DELETE', '/apis/certificates.plat.io/v1alpha1/clustertrustbundles', 'deletecollection', ''],
  ])('%s %s is a resource request with verb %s', (method, url, verb, name) => {
    const i = info(method, url);
    expect(i).toMatchObject({ isResourceRequest: true, verb, name, apiGroup: 'certificates.plat.io', apiVersion: 'v1alpha1', resource: 'clustertrustbundles' });
  });

  it('reads namespaces and subresources', () => {
    expect(info('GET', '/api/v1/namespaces/ns/pods/p/log')).toMatchObject({ namespace: 'ns', resource: 'pods', name: 'p', subresource: 'log', apiGroup: '' });
  });

  it('treats discovery and other paths as non-resource requests with the method as verb', () => {
    for (const path of ['/apis', '/apis/certificates.plat.io', '/apis/certificates.plat.io/v1alpha1', '/api', '/version', '/healthz']) {
      expect(info('GET', path)).toMatchObject({ isResourceRequest: false, verb: 'get', path });
    }
    expect(info('POST', '/version').verb).toBe('post');
  });
});
