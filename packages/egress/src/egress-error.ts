/** A dial through an egress selection failed; the message names the selection and the proxy. */
export class EgressDialError extends Error {
  readonly code = 'ERR_EGRESS_DIAL';
  constructor(
    readonly selection: string,
    readonly via: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`egress ${JSON.stringify(selection)} via ${via}: ${detail}`, options);
    this.name = 'EgressDialError';
  }
}
