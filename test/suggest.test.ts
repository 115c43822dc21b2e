import { describe, expect, it } from 'vitest';
import { didYouMean, suggest } from '../src/suggest.js';

describe('suggest', () => {
  it.each([
    ['shcema', ['schema', 'ndjson', 'format', 'lint'], 'schema'],
    ['--shcema', ['--schema', '--ndjson', '--format', '--lint'], '--schema'],
    ['valdate', ['build', 'validate', 'render'], 'validate'],
    ['jsno', ['text', 'json'], 'json'],
    ['JSON', ['text', 'json'], 'json'],
    ['clinical', ['clinical-input', 'link-carecontext-request'], 'clinical-input'],
    ['prescripton', ['prescription', 'lab-order', 'visit-summary'], 'prescription'],
  ])('finds %s -> the nearest known word', (given, known, expected) => {
    expect(suggest(given, known)).toBe(expected);
  });

  it.each([
    ['xyzzy', ['build', 'validate']],
    ['-x', ['-o', '-h']],
    ['--colour', ['--schema', '--lint', '--format']],
    ['', ['build']],
  ])('suggests nothing for %s, too far from every word or too short to guess from', (given, known) => {
    expect(suggest(given, known)).toBeUndefined();
  });

  it('words the suggestion for a message, or gives nothing', () => {
    expect(didYouMean('--shcema', ['--schema', '--lint'])).toBe('; did you mean --schema?');
    expect(didYouMean('--colour', ['--schema', '--lint'])).toBe('');
  });
});
