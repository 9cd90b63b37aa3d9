/** Structured logging hook: the app decides the format and the verbosity threshold. */
export interface ServerLogger {
  info(message: string, fields: Record<string, unknown>, verbosity: number): void;
  error(message: string, fields: Record<string, unknown>): void;
}

export const silentLogger: ServerLogger = {
  info: () => undefined,
  error: () => undefined,
};
