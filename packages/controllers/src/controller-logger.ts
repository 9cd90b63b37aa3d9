/** Where controllers report what they did and what failed (the apiserver's logger fits). */
export interface ControllerLogger {
  /** `verbosity` as klog's V(n): 0 always, 2 for routine changes. */
  info(message: string, fields: Record<string, unknown>, verbosity: number): void;
  error(message: string, fields: Record<string, unknown>): void;
}

export const silentControllerLogger: ControllerLogger = {
  info: () => undefined,
  error: () => undefined,
};
