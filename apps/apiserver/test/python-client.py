"""The Python kubernetes client (Debian's python3-kubernetes), unchanged, against a started plat
apiserver: configured from the generated kubeconfig, it runs each step and prints one JSON report
({step: result or {"error": ...}}) that the jest test (python-client.test.ts) asserts.

usage: python3 python-client.py KUBECONFIG CACHE_FILE PEM_FILE
"""
import json
import sys
import threading
import time
import traceback

from kubernetes import client, config, dynamic, watch
from kubernetes.client.rest import ApiException

GROUP, VERSION, PLURAL = 'certificates.plat.io', 'v1alpha1', 'clustertrustbundles'
API_VERSION = GROUP + '/' + VERSION


def bundle(name, pem, signer=None, labels=None):
    meta = {'name': name}
    if labels:
        meta['labels'] = labels
    spec = {'trustBundle': pem}
    if signer:
        spec['signerName'] = signer
    return {'apiVersion': API_VERSION, 'kind': 'ClusterTrustBundle', 'metadata': meta, 'spec': spec}


def failure(call):
    """The status and Status body of a call that must fail."""
    try:
        call()
    except ApiException as e:
        return {'status': e.status, 'body': json.loads(e.body) if e.body else None}
    raise AssertionError('the call succeeded')


def custom_objects(api_client, pem, pem2):
    custom = client.CustomObjectsApi(api_client)
    name = 'example.com:python:one'
    out = {}
    created = custom.create_cluster_custom_object(GROUP, VERSION, PLURAL, bundle(name, pem, 'example.com/python'))
    out['created'] = created['metadata']['name']
    got = custom.get_cluster_custom_object(GROUP, VERSION, PLURAL, name)
    out['got'] = {'name': got['metadata']['name'], 'kind': got['kind'], 'signerName': got['spec']['signerName']}
    listed = custom.list_cluster_custom_object(GROUP, VERSION, PLURAL, field_selector='spec.signerName=example.com/python')
    out['listed'] = [i['metadata']['name'] for i in listed['items']]
    got['spec']['trustBundle'] = pem2
    replaced = custom.replace_cluster_custom_object(GROUP, VERSION, PLURAL, name, got)
    out['replacedNewer'] = int(replaced['metadata']['resourceVersion']) > int(got['metadata']['resourceVersion'])
    out['unconditional'] = failure(lambda: custom.replace_cluster_custom_object(GROUP, VERSION, PLURAL, name, bundle(name, pem, 'example.com/python')))
    patched = custom.patch_cluster_custom_object(GROUP, VERSION, PLURAL, name, {'metadata': {'labels': {'via': 'merge'}}})
    out['patchedLabels'] = patched['metadata'].get('labels')
    deleted = custom.delete_cluster_custom_object(GROUP, VERSION, PLURAL, name)
    out['deleted'] = {'kind': deleted.get('kind'), 'status': deleted.get('status'), 'name': deleted.get('details', {}).get('name')}
    out['gone'] = failure(lambda: custom.get_cluster_custom_object(GROUP, VERSION, PLURAL, name))
    return out


def dynamic_client(api_client, cache_file, pem):
    dyn = dynamic.DynamicClient(api_client, cache_file=cache_file)
    ctb = dyn.resources.get(api_version=API_VERSION, kind='ClusterTrustBundle')
    out = {'resource': {'name': ctb.name, 'namespaced': ctb.namespaced, 'kind': ctb.kind, 'shortNames': list(ctb.short_names or [])}}
    name = 'example.com:dynamic:one'
    created = ctb.create(body=bundle(name, pem, 'example.com/dynamic', {'tier': 'one'}))
    out['created'] = created.metadata.name
    out['got'] = ctb.get(name=name).spec.signerName
    out['listed'] = [i.metadata.name for i in ctb.get(label_selector='tier=one').items]
    out['strategic'] = ctb.patch(name=name, body={'metadata': {'labels': {'tier': 'two'}}}).to_dict()['metadata']['labels']
    out['merge'] = ctb.patch(name=name, body={'metadata': {'labels': {'m': 'yes'}}}, content_type='application/merge-patch+json').to_dict()['metadata']['labels']
    # This client's REST layer sends only JSON-typed bodies from dicts; an apply configuration
    # (application/apply-patch+yaml) goes as text (JSON is YAML), with the name given.
    config_text = json.dumps(bundle(name, pem, 'example.com/dynamic', {'applied': 'yes'}))
    applied = dyn.server_side_apply(ctb, body=config_text, name=name, field_manager='python-e2e', force_conflicts=True)
    meta = applied.to_dict()['metadata']
    out['applied'] = {'labels': meta['labels'], 'managers': sorted({m['manager'] + '/' + m['operation'] for m in meta['managedFields']})}
    applied_new = dyn.server_side_apply(ctb, body=json.dumps(bundle('example.com:dynamic:applied', pem, 'example.com/dynamic')),
                                        name='example.com:dynamic:applied', field_manager='python-e2e')
    out['appliedNew'] = applied_new.metadata.name
    out['deleted'] = ctb.delete(name=name).status
    ctb.delete(name='example.com:dynamic:applied')
    return out


def watch_bookmarks(api_client, cache_file, pem):
    custom = client.CustomObjectsApi(api_client)
    name = 'example.com:pywatch:watched'
    watched = custom.create_cluster_custom_object(GROUP, VERSION, PLURAL, bundle(name, pem, 'example.com/pywatch'))
    other = {}

    def create_other():
        other.update(custom.create_cluster_custom_object(GROUP, VERSION, PLURAL, bundle('example.com:pywatch:other', pem, 'example.com/pywatch')))

    # A write outside the watch's selection while it runs: only a bookmark can carry its revision.
    threading.Timer(0.3, create_other).start()
    events = []
    started = time.monotonic()
    for e in watch.Watch().stream(custom.list_cluster_custom_object, GROUP, VERSION, PLURAL,
                                  resource_version=watched['metadata']['resourceVersion'], field_selector='metadata.name=' + name,
                                  allow_watch_bookmarks=True, timeout_seconds=3):
        events.append({'type': e['type'], 'rv': e['raw_object']['metadata']['resourceVersion'], 'at': time.monotonic() - started})
    out = {'events': events, 'elapsed': time.monotonic() - started, 'otherRv': other['metadata']['resourceVersion']}

    # Resumed from the bookmark through the DynamicClient's watch, the next watch sees only what
    # happens after it.
    def change():
        custom.patch_cluster_custom_object(GROUP, VERSION, PLURAL, name, {'metadata': {'labels': {'resumed': 'yes'}}})

    ctb = dynamic.DynamicClient(api_client, cache_file=cache_file).resources.get(api_version=API_VERSION, kind='ClusterTrustBundle')
    threading.Timer(0.3, change).start()
    w = watch.Watch()
    resumed = []
    for e in ctb.watch(field_selector='metadata.name=' + name, resource_version=events[-1]['rv'], timeout=10, watcher=w):
        resumed.append(e['type'] + ' ' + e['object'].metadata.name + ' ' + str(e['object'].metadata.labels.resumed))
        w.stop()
    out['resumed'] = resumed
    return out


def main():
    kubeconfig, cache_file, pem_file = sys.argv[1:4]
    with open(pem_file) as f:
        pem, pem2 = f.read().split('\n---\n')
    api_client = config.new_client_from_config(config_file=kubeconfig)
    report = {}
    for step, run in [
        ('customObjects', lambda: custom_objects(api_client, pem, pem2)),
        ('dynamic', lambda: dynamic_client(api_client, cache_file, pem)),
        ('watch', lambda: watch_bookmarks(api_client, cache_file, pem)),
    ]:
        try:
            report[step] = run()
        except Exception:
            report[step] = {'error': traceback.format_exc()}
    print(json.dumps(report))


if __name__ == '__main__':
    main()
