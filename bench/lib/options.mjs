// The command-line options of the bench scripts, read one way: `--name value` or `--name=value` for
// an option that takes a value, `--name` for a flag, `--help` (or `-h`) prints the script's usage
// and exits 0. Each script names its options and what each does with its value:
//
//   const o = { duration: 8, json: false };
//   parseCommandLine(HELP, {
//     '--duration': value((v) => (o.duration = Number(v))),
//     '--json': flag(() => (o.json = true)),
//   });

/** An option followed by a value; `apply` gets the value as written. */
export const value = (apply) => ({ apply, takesValue: true });

/** An option without a value. */
export const flag = (apply) => ({ apply: () => apply(), takesValue: false });

/** A command line the script cannot run with: an unknown option, a missing value. */
export class OptionError extends Error {}

/** Applies `argv`'s options in order; throws OptionError for one that is not in `options`. */
export function parseOptions(argv, help, options) {
  for (let i = 0; i < argv.length; i++) {
    let name = argv[i];
    let written;
    const eq = name.indexOf('=');
    if (name.startsWith('--') && eq > 0) {
      written = name.slice(eq + 1);
      name = name.slice(0, eq);
    }
    if (name === '--help' || name === '-h') {
      process.stdout.write(help.endsWith('\n') ? help : `${help}\n`);
      process.exit(0);
    }
    const option = Object.hasOwn(options, name) ? options[name] : undefined;
    if (!option) throw new OptionError(`unknown option ${name} (see --help)`);
    if (!option.takesValue) {
      if (written !== undefined) throw new OptionError(`${name} takes no value`);
      option.apply();
      continue;
    }
    if (written === undefined) {
      if (i + 1 >= argv.length) throw new OptionError(`${name} needs a value`);
      written = argv[++i];
    }
    option.apply(written);
  }
}

/** parseOptions on this process's arguments; a wrong command line prints why and the usage, exit 2. */
export function parseCommandLine(help, options) {
  try {
    parseOptions(process.argv.slice(2), help, options);
  } catch (err) {
    if (!(err instanceof OptionError)) throw err;
    console.error(`${err.message}\n${help}`);
    process.exit(2);
  }
}
