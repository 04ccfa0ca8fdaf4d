// Types of callgrind-split.mjs, for the tests that import it.
export interface CodeRange {
  start: number;
  end: number;
  name: string;
}
export declare function readPerfMap(file: string): CodeRange[];
export declare function groupOf(name: string, js: boolean): string;
export declare function splitFile(file: string, ranges: CodeRange[]): { groups: Map<string, number>; functions: Map<string, number> };
