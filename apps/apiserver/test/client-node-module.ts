// @kubernetes/client-node as the end-to-end tests load it: the module, or why it does not load
// here (its tests then skip and say so).
export type ClientNode = typeof import('@kubernetes/client-node');

export async function loadClientNode(): Promise<{ k8s: ClientNode | undefined; loadError: string }> {
  try {
    return { k8s: await import('@kubernetes/client-node'), loadError: '' };
  } catch (err) {
    return { k8s: undefined, loadError: err instanceof Error ? err.message : String(err) };
  }
}
