import * as assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { request } from 'undici';
import { EgressSelector, createEgressAgent, type EgressSelectorSpec } from '@plat/egress';

const port = (server: Server) => (server.address() as AddressInfo).port;

// A target (say, a webhook) and an HTTP CONNECT proxy in front of it. In production the proxy is
// tinyproxy or a Konnectivity server; here a few lines of node:http stand in for it.
const target = createServer((_req, res) => res.end('hello through the tunnel')).listen(0, '127.0.0.1');
const proxy = createServer()
  .on('connect', (req, client, head) => {
    const [host, targetPort] = (req.url ?? '').split(':');
    const upstream = connect(Number(targetPort), host, () => {
      client.write('HTTP/1.1 200 Connection established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
  })
  .listen(0, '127.0.0.1');
await Promise.all([once(target, 'listening'), once(proxy, 'listening')]);

// The EgressSelectorConfiguration, as @plat/config's loadEgressSelectorConfiguration returns it.
const spec: EgressSelectorSpec = {
  egressSelections: [
    { name: 'cluster', connection: { proxyProtocol: 'HTTPConnect', transport: { tcp: { url: `http://127.0.0.1:${port(proxy)}` } } } },
  ],
};
const selector = new EgressSelector(spec);

// Any undici request can be routed through a selection; TLS to an https target runs inside the tunnel.
const agent = createEgressAgent(selector.dialer('cluster'));
const res = await request(`http://127.0.0.1:${port(target)}/`, { dispatcher: agent });
assert.equal(await res.body.text(), 'hello through the tunnel');

// A selection without configuration dials directly, as kube-apiserver does.
assert.equal(selector.dialer('controlplane').via, 'direct');

await agent.close();
selector.close();
target.close();
proxy.close();
