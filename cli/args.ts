/**
 * Command-line parsing of `svc`: the subcommand and the options every
 * subcommand shares. Options that take a value (`--url`, `--api-key`,
 * `--timeout`, `--config`) accept `--name value` and `--name=value`; their values are never
 * mistaken for the subcommand (`svc --url http://h console`).
 *
 * @module
 */

/** Options that take a value. */
const VALUE_OPTIONS = ["--url", "--api-key", "--timeout", "--config"] as const;

/** Options that stand alone (`--strict-config` is read by the configuration loader). */
const FLAGS = ["--help", "-h", "--version", "-V", "--browser", "--strict-config"] as const;

/**
 * Settings an operator reaches for as options (`svc serve --port 0`): the
 * refusal names the key and variable that set them.
 */
const SETTINGS_NOT_OPTIONS: Record<string, [what: string, key: string]> = {
  "--port": ["port", "svc.port"],
  "--host": ["address to listen on", "svc.host"],
};

/** What the command line says. */
export interface CliArgs {
  /** The subcommand; `undefined` when none was given. */
  command?: string;
  /** `--url`: base URL of a server (remote mode). */
  url?: string;
  /** `--api-key`: the server's API key. */
  apiKey?: string;
  /** `--timeout`: how long a remote request waits for the server, in ms (as given). */
  timeout?: string;
  /** `--config`: a JSON or YAML file of `svc.*` keys. */
  config?: string;
  /** `--browser`: remote-with-browser mode (with `--url`). */
  browser: boolean;
  help: boolean;
  version: boolean;
  /** Every argument except the subcommand, as given (subcommands read their own options from it). */
  rest: string[];
}

/**
 * Parses the arguments of `svc`. A value option without its value, an
 * unknown option (named without its value: `--api_key=…` could hold a key)
 * and a second command are errors, never silently ignored: a mistyped
 * `--url` would otherwise run in memory.
 */
export function parseCliArgs(args: readonly string[]): CliArgs {
  const parsed: CliArgs = { browser: false, help: false, version: false, rest: [] };
  const values: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    // `deno task console -- --url …` passes the separator on (Deno 2): there are no positional values to set apart.
    if (arg === "--") continue;
    const option = VALUE_OPTIONS.find((name) => arg === name || arg.startsWith(`${name}=`));
    if (option) {
      const inline = arg.length > option.length;
      const value = inline ? arg.slice(option.length + 1) : args[i + 1];
      if (value === undefined) throw new Error(`Option ${option} needs a value`);
      values[option] = value;
      parsed.rest.push(arg);
      if (!inline) parsed.rest.push(args[++i]);
      continue;
    }
    if (arg === "--help" || arg === "-h") parsed.help = true;
    else if (arg === "--browser") parsed.browser = true;
    else if (arg === "--version" || arg === "-V") parsed.version = true;
    else if (arg.startsWith("-")) {
      if (!(FLAGS as readonly string[]).includes(arg)) throw new Error(unknownOption(arg.split("=")[0]));
    } else if (parsed.command === undefined) {
      parsed.command = arg;
      continue;
    } else {
      throw new Error(`Unexpected argument '${arg}': give one command (${parsed.command} was given first)`);
    }
    parsed.rest.push(arg);
  }
  parsed.url = values["--url"];
  parsed.apiKey = values["--api-key"];
  parsed.timeout = values["--timeout"];
  parsed.config = values["--config"];
  return parsed;
}

/** The refusal of an unknown option (named without its value: `--api_key=…` could hold a key). */
function unknownOption(name: string): string {
  const setting = Object.hasOwn(SETTINGS_NOT_OPTIONS, name) ? SETTINGS_NOT_OPTIONS[name] : undefined;
  if (!setting) return `Unknown option ${name}`;
  const [what, key] = setting;
  const variable = key.toUpperCase().replace(/[.-]/g, "_");
  return `Unknown option ${name}: the ${what} is the setting ${key}, ${variable}=… in the environment ` +
    `(or ${key} in the --config file)`;
}
