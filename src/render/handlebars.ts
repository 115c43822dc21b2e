/**
 * The one place that touches handlebars' module shapes. The package ships
 * CommonJS without an `exports` map and types only for the full build, so
 * the runtime build is imported by file and given a narrow type here.
 *
 * Only the runtime (no compiler) is loaded by default; the compiler is
 * imported on demand, for templates a user supplies.
 */
import runtimeModule from 'handlebars/runtime.js';
import type HandlebarsFull from 'handlebars';

/** A precompiled template: the object `Handlebars.precompile` describes. */
export type TemplateSpec = Readonly<Record<string, unknown>>;

/** A compiled template: context in, HTML out. */
export type TemplateFn = (context: unknown, options?: HandlebarsFull.RuntimeOptions) => string;

/** What the library uses of a private handlebars environment. */
export interface HandlebarsEnv {
  template(spec: TemplateSpec): TemplateFn;
  registerPartial(name: string, partial: TemplateFn): void;
  registerHelper(name: string, fn: (...args: unknown[]) => unknown): void;
  unregisterHelper(name: string): void;
  escapeExpression(value: unknown): string;
  SafeString: new (html: string) => object;
}

/** The full build's environment: the runtime plus the compiler. */
export interface HandlebarsCompilerEnv extends HandlebarsEnv {
  parse(source: string, options?: HandlebarsFull.ParseOptions): hbs.AST.Program;
  precompile(source: string, options?: PrecompileOptions): string;
  compile(source: string, options?: CompileOptions): TemplateFn;
}

/** A private environment of the runtime build; never the shared global instance. */
export function createRuntimeEnv(): HandlebarsEnv {
  return (runtimeModule as unknown as { create(): HandlebarsEnv }).create();
}

/** A private environment of the full build (with the compiler), loaded on first use. */
export async function createCompilerEnv(): Promise<HandlebarsCompilerEnv> {
  const mod = (await import('handlebars')) as unknown as { default: { create(): HandlebarsCompilerEnv } };
  return mod.default.create();
}
