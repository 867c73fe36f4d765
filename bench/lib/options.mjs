// The benches' command-line options, read from process.argv: `--name` switches and `--name value`.
/** The arguments after the script, as given (a bench repeats them in its results). */
export const argv = process.argv.slice(2);

/** Whether the switch is given. */
export const flag = (name) => argv.includes(name);

/** The value after the option, or undefined when it is not given. */
export const opt = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);

/** A whole-number option within [min, max], or the fallback when it is not given; anything else ends the bench with exit 2. */
export function num(name, fallback, min, max) {
  const raw = opt(name);
  if (raw === undefined) return fallback;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < min || v > max) {
    console.error(`bench: ${name} must be a whole number between ${min} and ${max}`);
    process.exit(2);
  }
  return v;
}
