/**
 * The endpoint registry: every per-endpoint fact lives in the spec definition,
 * and the tables keyed by endpoint id (the client's methods, the mock's
 * handlers) fail the type check when an endpoint is missing from them. The
 * `@ts-expect-error` lines below are checked by `npm run typecheck`: if a
 * table stopped catching a missing id, the directive itself would fail.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLIENT_METHODS, createClient, type AbhaClient } from '../src/client/client.js';
import { ENDPOINT_PATHS } from '../src/spec/constants.js';
import { HANDLERS, verifyOtpStep, type HandlerTable } from '../src/mock/endpoints.js';
import { MockState } from '../src/mock/state.js';
import { ENDPOINTS, PATTERNS, RESOURCES, type FieldDef, type ObjectDef } from '../src/spec/definition.js';
import { ENDPOINT_BY_ID, ENDPOINT_IDS, type EndpointId } from '../src/spec/endpoints.js';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('the endpoint registry', () => {
  it('generates one endpoint id and one path constant per endpoint of the spec definition, in its order', () => {
    expect([...ENDPOINT_IDS]).toEqual(ENDPOINTS.map((e) => e.id));
    expect(Object.values(ENDPOINT_PATHS)).toEqual(ENDPOINTS.map((e) => e.path));
    for (const id of ENDPOINT_IDS) expect(ENDPOINT_BY_ID[id].id).toBe(id);
  });

  it('fails the type check when the mock has no handler or the client no method for an endpoint id', () => {
    const { token: _token, ...withoutToken } = HANDLERS;
    // @ts-expect-error the handler table lacks the token endpoint
    const handlers: HandlerTable = withoutToken;
    const { 'link-carecontext': _link, ...withoutLink } = CLIENT_METHODS;
    // @ts-expect-error the client's table lacks link-carecontext
    const methods: Record<EndpointId, keyof AbhaClient | null> = withoutLink;
    // An endpoint added to the definition makes a new id, which neither table has.
    type WithNew = EndpointId | 'made-up-endpoint';
    // @ts-expect-error no handler for the new id
    const newHandlers: Record<WithNew, unknown> = HANDLERS;
    // @ts-expect-error no client method for the new id
    const newMethods: Record<WithNew, unknown> = CLIENT_METHODS;
    expect(Object.keys(handlers)).toHaveLength(ENDPOINT_IDS.length - 1);
    expect(Object.keys(methods)).toHaveLength(ENDPOINT_IDS.length - 1);
    expect([newHandlers, newMethods].map((t) => Object.keys(t).length)).toEqual([ENDPOINT_IDS.length, ENDPOINT_IDS.length]);
  });

  it('keeps the mock free of client internals', () => {
    const dir = join(root, 'src/mock');
    for (const f of readdirSync(dir)) expect(readFileSync(join(dir, f), 'utf8'), f).not.toMatch(/from '\.\.\/client\//);
  });
});

/** A minimal value a field's schema accepts (required fields only). */
function sample(f: FieldDef): unknown {
  const samples: Record<keyof typeof PATTERNS, string> = { mobile: '9000000001', otp: '123456', datetime: '2026-11-20', snomed: '80146002', loinc: '718-7', gstin: '29ABCDE1234F1Z5', hsnSac: '3004' };
  switch (f.type) {
    case 'string':
      if (f.pattern !== undefined) return samples[f.pattern];
      return f.format === 'date' ? '2026-11-20' : f.format === 'uri' ? 'https://example.org/x' : (f.examples?.[0] ?? 'x');
    case 'array':
      return (f.minItems ?? 0) > 0 ? [sample(f.items)] : [];
    case 'ref': {
      const r = RESOURCES.find((x) => x.name === f.ref);
      if (r === undefined) throw new Error(`no resource ${f.ref}`);
      return sampleObject(r);
    }
    case 'object':
      return sampleObject(f.object);
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    default:
      throw new Error(`no sample for a ${f.type} field`);
  }
}

const sampleObject = (o: ObjectDef): Record<string, unknown> => Object.fromEntries(o.required.map((k) => [k, sample(o.properties[k] as FieldDef)]));

describe('the client', () => {
  it('calls each endpoint through the method its table names, and the token endpoint itself', async () => {
    const paths: string[] = [];
    const client = createClient({
      baseUrl: 'https://abha.example.org',
      apiKey: 'planted-key-1',
      retry: false,
      fetch: async (url) => {
        const path = new URL(url).pathname;
        paths.push(path);
        const body = path === ENDPOINT_PATHS.token ? { status: true, data: 'header.payload.signature' } : { success: false, message: 'refused' };
        return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    for (const id of ENDPOINT_IDS) {
      const method = CLIENT_METHODS[id];
      if (method === null) continue;
      const call = client[method] as (request: unknown) => Promise<unknown>;
      await call.call(client, sampleObject(ENDPOINT_BY_ID[id].request)).catch(() => undefined);
      expect(paths.at(-1), `${id} through ${method}`).toBe(ENDPOINT_BY_ID[id].path);
    }
    expect(paths[0]).toBe(ENDPOINT_PATHS.token);
    expect(paths.filter((p) => p === ENDPOINT_PATHS.token)).toHaveLength(1);
  });
});

describe('the mock', () => {
  const state = (): MockState =>
    new MockState({
      apiKey: 'k',
      now: () => 1_800_000_000_000,
      tokenTtlSeconds: 60,
      otpTtlMs: 60_000,
      otp: '135790',
      seed: undefined,
      keepBodies: 0,
      linkRepeats: 'link-again',
      emit: () => undefined,
    });

  it('verifies the OTP of every OTP-verification endpoint in one step that issues the session lifetime its definition gives', () => {
    const verifying = ENDPOINTS.filter((e) => e.mock?.verifiesOtp !== undefined);
    expect(verifying.map((e) => e.section)).toEqual(['4.4', '4.5', '4.6', '4.7', '4.8', '4.9']);
    for (const ep of verifying) {
      const s = state();
      const txnId = s.newTxn('9000000001', s.accountsOf('9000000001'));
      const txn = s.txn(txnId);
      if (txn === undefined) throw new Error('no transaction');
      s.sendOtp(txnId, txn, 0);
      const hook = ep.mock?.verifiesOtp;
      const body = { txnId, [hook?.otpField ?? '']: '135790', ...(hook?.mobileField === undefined ? {} : { [hook.mobileField]: '9000000001' }) };
      const step = verifyOtpStep(ENDPOINT_BY_ID[ep.id as EndpointId], body, s);
      if (!('verified' in step)) throw new Error(`${ep.id}: ${JSON.stringify(step.reply.body)}`);
      expect(step.verified.tokens?.expiresIn, ep.id).toBe(ep.session?.ttlSeconds);
      expect(step.verified.tokens?.refreshExpiresIn, ep.id).toBe(ep.session?.refreshTtlSeconds);
      expect(s.sessionAccount(step.verified.tokens?.token ?? '')?.ABHANumber ?? null, ep.id).toBe(ep.session === undefined ? null : step.verified.account.ABHANumber);
      // The OTP is used up: the same body again is refused.
      expect(verifyOtpStep(ENDPOINT_BY_ID[ep.id as EndpointId], body, s), ep.id).toMatchObject({ reply: { status: 200, body: { success: false } } });
    }
  });
});
