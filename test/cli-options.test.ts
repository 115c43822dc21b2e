/**
 * The typed option reader of the CLI (src/cli/command.ts): every command
 * reads its options through defineCommand / readOptions, typed from the
 * option specs, instead of casting parseArgs' values.
 */
import { describe, expect, it } from 'vitest';
import { defineCommand, readOptions } from '../src/cli/command.js';

const specs = { format: { type: 'string' }, lint: { type: 'boolean' }, attach: { type: 'string', multiple: true } } as const;

describe('readOptions', () => {
  it('gives a flag not given as false, a string option not given as undefined, a repeatable one as []', () => {
    expect(readOptions(specs, {})).toEqual({ format: undefined, lint: false, attach: [] });
  });

  it('gives the values parseArgs found, and nothing the specs do not declare', () => {
    expect(readOptions(specs, { format: 'json', lint: true, attach: ['a=b', 'c=d'], help: true })).toEqual({ format: 'json', lint: true, attach: ['a=b', 'c=d'] });
  });

  it('refuses a value of another type than its spec as an internal error', () => {
    expect(() => readOptions(specs, { lint: 'yes' })).toThrow(/internal: --lint is not a boolean/);
  });

  it('types each option from its spec, and an undeclared option is a type error', () => {
    const o = readOptions(specs, {});
    const format: string | undefined = o.format;
    const lint: boolean = o.lint;
    const attach: readonly string[] = o.attach;
    // @ts-expect-error: --schema is not one of the options
    expect(o.schema).toBeUndefined();
    // @ts-expect-error: a string option may be absent
    const sure: string = o.format;
    expect([format, lint, attach, sure]).toEqual([undefined, false, [], undefined]);
  });
});

describe('defineCommand', () => {
  it('hands run the options read from the parsed values, typed', async () => {
    const command = defineCommand({
      usage: 'abha-link demo [--lint] [--format F]',
      help: 'demo',
      options: { format: { type: 'string' }, lint: { type: 'boolean' } },
      run: ({ values, positionals }) => Promise.resolve(values.lint && values.format === 'json' ? positionals.length : -1),
    });
    expect(await command.run({ values: { lint: true, format: 'json' }, positionals: ['a', 'b'] })).toBe(2);
    expect(await command.run({ values: {}, positionals: [] })).toBe(-1);
  });
});
