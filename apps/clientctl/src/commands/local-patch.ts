// A static named import, loaded through import() by the patch command: esbuild can then drop the
// parts of @plat/patch that `patch --local` does not use (server-side apply, managedFields).
export { applyPatch } from '@plat/patch';
