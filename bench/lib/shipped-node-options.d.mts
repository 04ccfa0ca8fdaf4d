// Types of shipped-node-options.mjs, for the tests that import it.
export declare function shippedNodeOptions(entry: string): string[];
