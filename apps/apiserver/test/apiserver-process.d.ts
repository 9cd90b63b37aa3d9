// The types of tools/e2e/apiserver-process.mjs (tools/ is no project: referred to by type imports).
type Shared = typeof import('../../../tools/e2e/apiserver-process.mjs');
export type StartedApiServer = import('../../../tools/e2e/apiserver-process.mjs').StartedApiServer;
export type Credentials = import('../../../tools/e2e/apiserver-process.mjs').Credentials;
export type StartApiServerOptions = import('../../../tools/e2e/apiserver-process.mjs').StartApiServerOptions;

export const adminCredentials: Shared['adminCredentials'];
export const tempDir: Shared['tempDir'];
export function bundlePath(): string;
export function buildApiServerBundle(): Promise<string>;
/** As tools/e2e's, with the bundle the jest global setup built unless one is given. */
export function startApiServer(opts: Omit<StartApiServerOptions, 'bundle'> & { bundle?: string }): Promise<StartedApiServer>;
