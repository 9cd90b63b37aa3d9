import { Counter, type Registry } from 'prom-client';

/** Dials and failures per egress selection, registered on the server's registry. */
export class EgressMetrics {
  readonly dials: Counter<'selection' | 'protocol'>;
  readonly failures: Counter<'selection' | 'protocol'>;

  constructor(registry?: Registry) {
    const registers = registry ? [registry] : [];
    this.dials = new Counter({
      name: 'apiserver_egress_dialer_dial_start_total',
      help: 'Dials started, per egress selection and proxy protocol.',
      labelNames: ['selection', 'protocol'],
      registers,
    });
    this.failures = new Counter({
      name: 'apiserver_egress_dialer_dial_failure_count',
      help: 'Dials that failed, per egress selection and proxy protocol.',
      labelNames: ['selection', 'protocol'],
      registers,
    });
  }
}
