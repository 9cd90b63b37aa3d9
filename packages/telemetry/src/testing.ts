/**
 * For tests of code that exports traces (the `@plat/telemetry/testing` subpath): a real OTLP/gRPC
 * trace receiver on a loopback port.
 */
export { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './testing/otlp-receiver.js';
