// Types of pg-backends.mjs, for the test that imports it.
export declare function backendPids(client: { query: (text: string, values?: unknown[]) => Promise<{ rows: { pid: number }[] }> }, pid: number, serverPort?: number): Promise<number[]>;
export declare function backendsCpuSeconds(pids: number[]): number;
