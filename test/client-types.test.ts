/**
 * Type tests of the client's results and errors: checked by `npm run
 * typecheck` (tsc over test/), which fails when a type below drifts. The
 * run-time part checks the same promises against the mock.
 */
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import ts from 'typescript';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { EnvelopeError, NetworkError, TransportError, createClient, type AbhaClient, type Issue, type LinkCareContextSuccess, type SessionToken } from '../src/client/index.js';
import type { AccountProfile, SearchAccountEntry, SearchResultItem, VerifyOtpResponseData } from '../src/index.js';
import { startMockServer, type MockEvent } from '../src/mock/index.js';
import { m1Flow } from './fixtures/client/m1-flow.js';

type Result<M extends keyof AbhaClient> = AbhaClient[M] extends (...args: never[]) => Promise<infer R> ? R : never;

describe('the result type of a client method', () => {
  it('says success: true and has data, for every method whose endpoint the spec gives a payload', () => {
    expectTypeOf<Result<'searchAbha'>['success']>().toEqualTypeOf<true>();
    expectTypeOf<Result<'searchAbha'>['data']>().toEqualTypeOf<SearchResultItem[]>();
    expectTypeOf<Result<'getProfile'>['data']>().toEqualTypeOf<AccountProfile>();
    expectTypeOf<Result<'requestOtp'>['data']>().toHaveProperty('txnId');
    expectTypeOf<Result<'verifyOtp'>['success']>().toEqualTypeOf<true>();
    expectTypeOf<Result<'verifyOtp'>['data']['token']>().toEqualTypeOf<SessionToken>();
    expectTypeOf<Result<'abhaAddressLoginVerifyOtp'>['data']['tokens']>().toEqualTypeOf<{ token?: SessionToken; expiresIn?: number; refreshToken?: string; refreshExpiresIn?: number } | undefined>();
    expectTypeOf<Result<'enrollVerifyOtp'>['data']>().not.toBeNullable();
    expectTypeOf<Result<'fetchAbhaAddressProfile'>['data']>().not.toBeNullable();
    expectTypeOf<Result<'mobileLoginAbhaNumberVerifyOtp'>['data']>().not.toBeNullable();
    // No success: false branch to narrow away.
    expectTypeOf<Result<'mobileLoginVerifyOtp'>>().toMatchTypeOf<{ success: true }>();
    expectTypeOf<Result<'aadharNumberLoginVerifyOtp'>>().not.toMatchTypeOf<{ success: false }>();
  });

  it('types as present what one step of the typical flow (spec §1) hands to the next: txnId, the account index, the session token', () => {
    expectTypeOf<SearchResultItem['txnId']>().toEqualTypeOf<string>();
    expectTypeOf<SearchResultItem['ABHA']>().toEqualTypeOf<SearchAccountEntry[]>();
    expectTypeOf<SearchAccountEntry['index']>().toEqualTypeOf<number>();
    expectTypeOf<Result<'requestOtp'>['data']['txnId']>().toEqualTypeOf<string>();
    expectTypeOf<Result<'requestOtp'>['data']['message']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Result<'verifyOtp'>['data']['expiresIn']>().toEqualTypeOf<number | undefined>();
  });

  it('keeps optional the fields the spec leaves open: the payload fields, the message, and the link answer (not shown by the spec)', () => {
    expectTypeOf<AccountProfile['ABHANumber']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<VerifyOtpResponseData['authResult']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Result<'searchAbha'>['message']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Result<'linkCareContexts'>>().toEqualTypeOf<LinkCareContextSuccess>();
    expectTypeOf<LinkCareContextSuccess['success']>().toEqualTypeOf<true>();
    expectTypeOf<LinkCareContextSuccess['data']>().toEqualTypeOf<unknown>();
    expectTypeOf<LinkCareContextSuccess['mismatches']>().toEqualTypeOf<readonly Issue[] | undefined>();
  });

  it('lets the service reason of a failure be read from the error as serviceMessage', () => {
    expectTypeOf<EnvelopeError['serviceMessage']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<TransportError['serviceMessage']>().toEqualTypeOf<string | undefined>();
  });
});

/** The diagnostics of test/fixtures/client/m1-flow.ts compiled alone under `strict: true`, and its non-null assertions. */
function compileStrict(file: string): { errors: string[]; nonNull: string[] } {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    types: ['node'],
  };
  const program = ts.createProgram([file], options);
  const source = program.getSourceFile(file);
  if (source === undefined) throw new Error(`${file} was not compiled`);
  const errors = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  const nonNull: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isNonNullExpression(node)) nonNull.push(node.getText(source));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { errors, nonNull };
}

describe('the M1 flow (search, request OTP, verify, profile) as a user writes it', () => {
  it('compiles under strict TypeScript with no non-null assertion', () => {
    const r = compileStrict(fileURLToPath(new URL('fixtures/client/m1-flow.ts', import.meta.url)));
    expect(r.errors).toEqual([]);
    expect(r.nonNull).toEqual([]);
  }, 120_000);

  it('runs against the mock to the account profile', async () => {
    const otps: string[] = [];
    const mock = await startMockServer({ apiKey: 'sk-m1-flow-key-1', onEvent: (e: MockEvent) => (e.type === 'otp' ? void otps.push(e.otp) : undefined) });
    try {
      const profile = await m1Flow({ baseUrl: mock.url, apiKey: 'sk-m1-flow-key-1', mobile: '9000000007', askOtp: () => Promise.resolve(otps.at(-1) ?? '') });
      expect(otps).toHaveLength(1);
      expect(profile.mobile).toBe('9000000007');
      expect(profile.preferredAbhaAddress).toMatch(/@(sbx|abdm)$/);
    } finally {
      await mock.close();
    }
  });
});

describe('the message of a failed call says what happened, in words, and holds no secret or health data', () => {
  it('a wrong OTP: the service refused, its reason in serviceMessage only', async () => {
    let otp = '';
    const mock = await startMockServer({ apiKey: 'sk-wrong-otp-key-1', onEvent: (e) => (e.type === 'otp' ? (otp = e.otp) : undefined) });
    try {
      const c = createClient({ baseUrl: mock.url, apiKey: 'sk-wrong-otp-key-1' });
      const s = await c.searchAbha({ mobile: '9000000008' });
      const first = s.data[0];
      if (first === undefined) throw new Error('the mock found no account');
      const sent = await c.requestOtp({ scope: ['abha-login'], loginHint: 'index', otpSystem: 'abdm', loginId: '0', txnId: first.txnId });
      const wrong = otp === '000000' ? '111111' : '000000';
      const e = await c.verifyOtp({ scope: ['abha-login'], txnId: sent.data.txnId, otp: wrong }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(EnvelopeError);
      const err = e as EnvelopeError;
      expect(err.message).toMatch(
        /^POST \/api\/m1\/abha\/search\/verify\/otp HTTP 200: the service refused the request \(it answered success: false\); its reason is in serviceMessage \(request [0-9a-f-]{36}\)$/,
      );
      expect(err.serviceMessage).toBe('otp is incorrect');
      // The right OTP still works: the profile gives the ABHA address, which no message may hold.
      const v = await c.verifyOtp({ scope: ['abha-login'], txnId: sent.data.txnId, otp });
      const address = (await c.getProfile({ token: v.data.token })).data.preferredAbhaAddress ?? '';
      expect(address).not.toBe('');
      const shown = [err.message, String(err.stack), inspect(err), JSON.stringify(err)].join('\n');
      for (const secret of [otp, wrong, v.data.token, '9000000008', address, 'sk-wrong-otp-key-1', sent.data.txnId]) expect(shown).not.toContain(secret);
    } finally {
      await mock.close();
    }
  });

  it('a refused connection (a closed local port) says "connection refused", with the code', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const c = createClient({ baseUrl: `http://127.0.0.1:${address.port}`, apiKey: 'sk-refused-key-1', retry: { maxAttempts: 2 }, sleep: () => Promise.resolve() });
    const e = await c.searchAbha({ mobile: '9000000009' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NetworkError);
    const err = e as NetworkError;
    expect(err.reason).toBe('connection-refused');
    expect(err.message).toMatch(
      /^POST \/api\/m1\/abha\/token: connection refused: the request never reached the service \(ECONNREFUSED\); not retried: all 2 attempts made \(request [0-9a-f-]{36}, 2 attempts\)$/,
    );
    const shown = [err.message, String(err.stack), inspect(err), JSON.stringify(err)].join('\n');
    for (const secret of ['sk-refused-key-1', '9000000009']) expect(shown).not.toContain(secret);
  });

  it('a port fetch blocks (1) says so instead of "failed before an answer came", and is not retried', async () => {
    let calls = 0;
    const c = createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'sk-port-key-1', fetch: (url, init) => (calls++, fetch(url, init)), sleep: () => Promise.resolve() });
    const err = (await c.searchAbha({ mobile: '9000000009' }).catch((x: unknown) => x)) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.reason).toBe('request-refused');
    expect(err.message).toContain('fetch refuses to connect to this port (one the Fetch standard blocks, such as 1, 9 or 6000; check the base URL): the request was not sent');
    expect(calls).toBe(1);
  });
});
