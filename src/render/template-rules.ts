/**
 * The rules every template obeys, bundled or supplied by a user: the compile
 * options, and the checks on a parsed template that keep data escaped.
 * Shared by the build-time precompiler (scripts/precompile-templates.ts) and
 * the run-time compiler of user templates.
 */
import { TemplateError } from './errors.js';

/**
 * The helpers a template may call besides handlebars' `if`, `unless`, `each` and `with`.
 *
 * @example
 * HELPER_NAMES //=> ['qrCode', 'cssContent'], used as {{qrCode document.link}} and, in a style sheet, content: {{cssContent page.identity}}
 */
export const HELPER_NAMES = ['qrCode', 'cssContent'] as const;

/**
 * Compile options of every template: strict (a missing field is an error,
 * not an empty string), only known helpers, and neither `log` (it would
 * write data to the console) nor `lookup` (dynamic property access).
 * `noEscape` is never set.
 *
 * @example
 * Handlebars.precompile(source, { ...COMPILE_OPTIONS, knownHelpers: { ...COMPILE_OPTIONS.knownHelpers } })
 */
export const COMPILE_OPTIONS = {
  strict: true,
  knownHelpersOnly: true,
  knownHelpers: { qrCode: true, cssContent: true, log: false, lookup: false },
} as const;

/**
 * The shape of template and partial names: lower-case letters, digits and
 * `-` (file names without `.hbs`). Use {@link isTemplateName}, which also
 * refuses the names of prototype members.
 *
 * @example
 * TEMPLATE_NAME.test('my-prescription') //=> true
 */
export const TEMPLATE_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

const PROTOTYPE_WORDS = new Set(['__proto__', 'constructor', 'prototype', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__']);

/**
 * True for a usable template or partial name: {@link TEMPLATE_NAME} and not
 * the name of a prototype member (`constructor`, `prototype`).
 *
 * @example
 * isTemplateName('letterhead')  //=> true
 * isTemplateName('constructor') //=> false
 * isTemplateName('My Template') //=> false
 */
export function isTemplateName(name: string): boolean {
  return TEMPLATE_NAME.test(name) && !PROTOTYPE_WORDS.has(name);
}

interface Node {
  type: string;
  loc?: { start?: { line?: number } } | null;
  [key: string]: unknown;
}

/**
 * Walks a parsed template (the result of handlebars `parse`) and throws a
 * {@link TemplateError} for the first construct that could write data
 * unescaped or reach outside the data: `{{{ }}}` and `{{& }}`, decorators,
 * dynamic partials, and paths through `__proto__`, `constructor` or
 * `prototype`. Returns the names of the partials the template uses.
 *
 * @example
 * checkTemplateAst(Handlebars.parse('{{> letterhead}}<p>{{patient.name}}</p>'), 'mine') //=> ['letterhead']
 * checkTemplateAst(Handlebars.parse('{{{patient.name}}}'), 'mine') // throws TemplateError (unescaped-output)
 */
export function checkTemplateAst(ast: unknown, template: string): string[] {
  const partials = new Set<string>();
  const lineOf = (n: Node): number | undefined => n.loc?.start?.line ?? undefined;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const v of value) visit(v);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const n = value as Node;
    if (typeof n.type !== 'string') return;
    switch (n.type) {
      case 'MustacheStatement':
        if (n.escaped === false) throw new TemplateError(template, 'unescaped-output', '{{{ }}} and {{& }} write a value without escaping; use {{ }}', lineOf(n));
        break;
      case 'Decorator':
      case 'DecoratorBlock':
        throw new TemplateError(template, 'decorator', 'decorators ({{* }}) are not allowed', lineOf(n));
      case 'PartialStatement':
      case 'PartialBlockStatement': {
        const name = n.name as Node;
        if (name.type !== 'PathExpression')
          throw new TemplateError(template, 'dynamic-partial', 'a partial must be named in the template, e.g. {{> letterhead}}; dynamic partials are not allowed', lineOf(n));
        const original = String(name.original);
        if (original !== '@partial-block') partials.add(original);
        break;
      }
      case 'PathExpression':
        for (const part of n.parts as unknown[]) {
          if (typeof part === 'string' && PROTOTYPE_WORDS.has(part)) throw new TemplateError(template, 'prototype-path', `the path ${String(n.original)} reaches into object prototypes`, lineOf(n));
        }
        return;
      default:
        break;
    }
    for (const [k, v] of Object.entries(n)) if (k !== 'loc') visit(v);
  };
  visit(ast);
  return [...partials];
}

/**
 * Turns a handlebars compile or parse error into a {@link TemplateError};
 * template text is not health data, so the reason is kept.
 *
 * @example
 * compileError('mine', new Error('Parse error on line 2: ...')).line //=> 2
 */
export function compileError(template: string, e: unknown): TemplateError {
  const message = e instanceof Error ? e.message : String(e);
  const line = /line (\d+)/i.exec(message);
  const unknownHelper = /unknown helper (\S+)/.exec(message);
  if (unknownHelper !== null) {
    return new TemplateError(
      template,
      'unknown-helper',
      `unknown helper ${unknownHelper[1] ?? ''}; the helpers are if, unless, each, with and ${HELPER_NAMES.join(', ')}`,
      line === null ? undefined : Number(line[1]),
    );
  }
  const first = message.split('\n').filter((l) => l.trim() !== '');
  const reason = first.length > 1 ? `${first[0] ?? ''} ${first[first.length - 1] ?? ''}` : (first[0] ?? 'does not compile');
  return new TemplateError(template, 'syntax', reason.replace(/\s+/g, ' ').slice(0, 300), line === null ? undefined : Number(line[1]));
}
