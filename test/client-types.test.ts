/**
 * Type tests of the client's results and errors: checked by `npm run
 * typecheck` (tsc over test/), which fails when a type below drifts. The
 * run-time part checks the same promises against the mock.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { EnvelopeError, TransportError, createClient, type AbhaClient, type Issue, type LinkCareContextSuccess, type SessionToken } from '../src/client/index.js';
import type { AccountProfile, SearchResultItem, VerifyOtpResponseData } from '../src/index.js';
import { startMockServer } from '../src/mock/index.js';

type Result<M extends keyof AbhaClient> = AbhaClient[M] extends (...args: never[]) => Promise<infer R> ? R : never;

describe('the result type of a client method', () => {
  it('says success: true and has data, for every method whose endpoint the spec gives a payload', () => {
    expectTypeOf<Result<'searchAbha'>['success']>().toEqualTypeOf<true>();
    expectTypeOf<Result<'searchAbha'>['data']>().toEqualTypeOf<SearchResultItem[]>();
    expectTypeOf<Result<'getProfile'>['data']>().toEqualTypeOf<AccountProfile>();
    expectTypeOf<Result<'requestOtp'>['data']>().toHaveProperty('txnId');
    expectTypeOf<Result<'verifyOtp'>['success']>().toEqualTypeOf<true>();
    expectTypeOf<Result<'verifyOtp'>['data']['token']>().toEqualTypeOf<SessionToken | undefined>();
    expectTypeOf<Result<'abhaAddressLoginVerifyOtp'>['data']['tokens']>().toEqualTypeOf<{ token?: SessionToken; expiresIn?: number; refreshToken?: string; refreshExpiresIn?: number } | undefined>();
    expectTypeOf<Result<'enrollVerifyOtp'>['data']>().not.toBeNullable();
    expectTypeOf<Result<'fetchAbhaAddressProfile'>['data']>().not.toBeNullable();
    expectTypeOf<Result<'mobileLoginAbhaNumberVerifyOtp'>['data']>().not.toBeNullable();
    // No success: false branch to narrow away.
    expectTypeOf<Result<'mobileLoginVerifyOtp'>>().toMatchTypeOf<{ success: true }>();
    expectTypeOf<Result<'aadharNumberLoginVerifyOtp'>>().not.toMatchTypeOf<{ success: false }>();
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

  it('holds at run time against the mock: data present after success, the wrong OTP reason on the error only', async () => {
    let otp = '';
    const mock = await startMockServer({ apiKey: 'sk-types-key-1', onEvent: (e) => (e.type === 'otp' ? (otp = e.otp) : undefined) });
    try {
      const c = createClient({ baseUrl: mock.url, apiKey: 'sk-types-key-1' });
      const s = await c.searchAbha({ mobile: '9000000007' });
      // No optional chaining needed on data: the type says it is there, and it is.
      const txnId = s.data[0]?.txnId ?? '';
      await c.requestOtp({ scope: ['abha-login'], loginHint: 'index', otpSystem: 'abdm', loginId: '0', txnId });
      const wrong = otp === '000000' ? '111111' : '000000';
      const e = await c.verifyOtp({ scope: ['abha-login'], txnId, otp: wrong }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(EnvelopeError);
      expect((e as EnvelopeError).serviceMessage).toBe('otp is incorrect');
      expect((e as EnvelopeError).message).not.toContain('otp is incorrect');
      const v = await c.verifyOtp({ scope: ['abha-login'], txnId, otp });
      expect(v.success).toBe(true);
      expect(typeof v.data.token).toBe('string');
    } finally {
      await mock.close();
    }
  });
});
