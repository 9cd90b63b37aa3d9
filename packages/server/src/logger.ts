/** Structured logging hook: the app decides the format and the verbosity threshold. */
export interface ServerLogger {
  info(message: string, fields: Record<string, unknown>, verbosity: number): void;
  error(message: string, fields: Record<string, unknown>): void;
  /**
   * Optional: whether info lines of this verbosity are written. When it answers false the server
   * does not even build them (the per-request line is built for every request otherwise).
   */
  enabled?(verbosity: number): boolean;
}

export const silentLogger: ServerLogger = {
  info: () => undefined,
  error: () => undefined,
  enabled: () => false,
};
