import { describe, expect, it } from 'vitest';
import { flag, OptionError, parseOptions, value } from '../../bench/lib/options.mjs';

/** The options of a typical bench script, recording what they were given. */
function script() {
  const o = { duration: 8, tree: '', json: false, targets: [] as string[] };
  const options = {
    '--duration': value((v) => (o.duration = Number(v))),
    '--tree': value((v) => (o.tree = v)),
    '--targets': value((v) => (o.targets = v.split(','))),
    '--json': flag(() => (o.json = true)),
  };
  return { o, parse: (argv: string[]) => parseOptions(argv, 'Usage: test', options) };
}

describe('bench/lib/options.mjs', () => {
  it('reads `--name value`, `--name=value` and flags, in order, and leaves the others at their defaults', () => {
    const { o, parse } = script();
    parse(['--duration', '12', '--json', '--targets=bare,agentport', '--duration=3']);
    expect(o).toEqual({ duration: 3, tree: '', json: true, targets: ['bare', 'agentport'] });
  });

  it('takes the next argument as the value even when it starts with dashes', () => {
    const { o, parse } = script();
    parse(['--tree', '--json']);
    expect(o.tree).toBe('--json');
    expect(o.json).toBe(false);
  });

  it('refuses an unknown option, a missing value and a value given to a flag', () => {
    const { parse } = script();
    expect(() => parse(['--bogus'])).toThrow(new OptionError('unknown option --bogus (see --help)'));
    expect(() => parse(['--duration'])).toThrow(new OptionError('--duration needs a value'));
    expect(() => parse(['--json=yes'])).toThrow(new OptionError('--json takes no value'));
    // an inherited property is no option
    expect(() => parse(['toString'])).toThrow(OptionError);
  });
});
