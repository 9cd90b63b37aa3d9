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

/**
 * An EgressSelectorConfiguration the selector cannot build dialers from (an unknown selection name,
 * a proxy without the transport it needs); @plat/config's loader reports these first, with field paths.
 */
export class EgressConfigError extends Error {
  readonly code = 'ERR_EGRESS_CONFIG';
  constructor(message: string) {
    super(message);
    this.name = 'EgressConfigError';
  }
}
