import fs from 'node:fs';
import path from 'node:path';
import { Agent, request } from 'undici';
import { adminCredentials, startApiServer, tempDir } from './apiserver-process.js';
import { eventually, startOidcProvider } from './auth-fixtures.js';

// The real apiserver binary with a JWT issuer that is unreachable when it starts, as
// kube-apiserver handles one: the server starts and is ready (kube-apiserver has no /readyz check
// for JWT authenticators), the issuer's tokens get 401 while discovery is retried in the
// background, they work once the issuer is up, and the loaded keys stay when it goes away again.

const ssr = '/apis/authentication.plat.io/v1/selfsubjectreviews';
const now = () => Math.floor(Date.now() / 1000);

describe('a JWT issuer that comes up after the apiserver', () => {
  it('starts, stays ready, refuses its tokens until discovery succeeds, then keeps its keys', async () => {
    const dir = tempDir('plat-oidc-late-');
    const idp = await startOidcProvider(dir, { listen: false });
    const config = path.join(dir, 'authn.yaml');
    fs.writeFileSync(
      config,
      JSON.stringify({
        apiVersion: 'apiserver.plat.io/v1beta1',
        kind: 'AuthenticationConfiguration',
        jwt: [
          {
            issuer: { url: idp.url, certificateAuthority: fs.readFileSync(idp.caFile, 'utf8'), audiences: ['plat'] },
            claimMappings: { username: { claim: 'sub', prefix: 'oidc:' } },
          },
        ],
      }),
    );
    const server = await startApiServer({ dataDir: path.join(dir, 'data'), args: ['--storage-backend=memory', `--authentication-config=${config}`] });
    const creds = adminCredentials(server.kubeconfig);
    const plain = new Agent({ connect: { ca: creds.ca } });
    const call = async (method: 'GET' | 'POST', p: string, token?: string) => {
      const res = await request(`${server.url}${p}`, {
        method,
        dispatcher: plain,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
      });
      return { status: res.statusCode, text: await res.body.text() };
    };
    try {
      const readyz = await call('GET', '/readyz?verbose');
      expect(readyz.status).toBe(200);
      expect(readyz.text).toContain('[+]storage ok');
      expect(readyz.text).not.toMatch(/jwt|authentication|oidc/i);

      const token = await idp.sign({ iss: idp.url, aud: 'plat', sub: 'alice', exp: now() + 600 });
      const refused = await call('POST', ssr, token);
      expect(refused.status).toBe(401);
      expect(JSON.parse(refused.text)).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
      await eventually(() => /cannot load the issuer keys/.test(server.stdout() + server.stderr()));

      await idp.start();
      // Discovery is retried after 1, 2, 4, 8 and then every 10 s (kube-apiserver polls every 10 s).
      await eventually(async () => (await call('POST', ssr, token)).status === 201, 25_000);
      expect(JSON.parse((await call('POST', ssr, token)).text).status).toEqual({ userInfo: { username: 'oidc:alice', groups: ['system:authenticated'] } });

      await idp.stop();
      const later = await idp.sign({ iss: idp.url, aud: 'plat', sub: 'carol', exp: now() + 600 });
      expect(JSON.parse((await call('POST', ssr, later)).text).status).toMatchObject({ userInfo: { username: 'oidc:carol' } });
      expect((await call('GET', '/readyz')).status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
      await plain.close();
      await idp.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
