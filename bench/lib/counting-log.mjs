// The collector's logger in the simulated benches: info is dropped, warnings and errors are
// counted by message so the report can show what went wrong and how often.

/** `{ logged, log }`: `log` for the Collector, `logged` maps `level: message` to its count. */
export function countingLog() {
  const logged = {};
  const count = (level) => (obj, msg) => {
    const key = `${level}: ${typeof obj === 'string' ? obj : msg}`;
    logged[key] = (logged[key] ?? 0) + 1;
  };
  return { logged, log: { info: () => {}, warn: count('warn'), error: count('error') } };
}
