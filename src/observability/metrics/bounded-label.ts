/**
 * The values one label may take, bounded: a label's series multiply, and a value chosen by a
 * caller (a tool name, an unknown path) must not grow Prometheus without end. A value joins the set
 * only from a call that succeeded (what a client merely sends is not a known name) and while the set
 * has room, or from the configuration (`seed`); any other value reads as 'other'.
 */
export const OTHER = 'other';

export class BoundedLabel {
  private readonly known = new Set<string>();

  constructor(private readonly max: number) {}

  /** Values known from the start (configured names), beyond the bound. */
  seed(values: Iterable<string>): void {
    for (const v of values) this.known.add(v);
  }

  /** `value` as a label value; `admit`: the value may join the set (it came from a successful call). */
  of(value: string | undefined, admit: boolean): string {
    if (value === undefined || value === '') return '';
    if (this.known.has(value)) return value;
    if (admit && this.known.size < this.max) {
      this.known.add(value);
      return value;
    }
    return OTHER;
  }
}
