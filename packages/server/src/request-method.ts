/**
 * A request's method in upper case, as `method.toUpperCase()` answers it. Node's HTTP/1.1 parser
 * hands over its own upper-case constants, and `toUpperCase` is a call into V8's runtime even for
 * a string it returns as it is: 37-59 ns a call against 8-30 for this scan of a method already in
 * upper case (microbenchmark, load 5; docs/performance.md "apiserver", fifth round). Only a
 * method with a lower-case ASCII letter or any non-ASCII character (an HTTP/2 `:method` can carry
 * either) takes the conversion.
 */
export function upperCaseMethod(method: string): string {
  for (let i = 0; i < method.length; i++) {
    const c = method.charCodeAt(i);
    if ((c >= 0x61 && c <= 0x7a) || c >= 0x80) return method.toUpperCase();
  }
  return method;
}
