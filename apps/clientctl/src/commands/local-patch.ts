// A static named import, loaded through import() by the patch command: esbuild can then keep
// @plat/patch (the patch functions and their schema table) out of what other commands load.
export { patchLocally } from '@plat/client';
