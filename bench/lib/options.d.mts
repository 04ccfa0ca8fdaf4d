// Types of options.mjs, for the tests that import it.
export interface Option {
  apply: (value?: string) => void;
  takesValue: boolean;
}
export declare const value: (apply: (value: string) => unknown) => Option;
export declare const flag: (apply: () => unknown) => Option;
export declare class OptionError extends Error {}
export declare function parseOptions(argv: string[], help: string, options: Record<string, Option>): void;
export declare function parseCommandLine(help: string, options: Record<string, Option>): void;
