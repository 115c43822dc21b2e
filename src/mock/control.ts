/**
 * The mock's control endpoints under `/__mock/`: its counts, its fault rules
 * and the revocation of bearer tokens, for tests that drive a mock in
 * another process. Not part of the service.
 */
import { checkFaultRule } from './faults.js';
import { fail, ok, type Reply } from './reply.js';
import type { MockState } from './state.js';

const CONTROL_ENDPOINTS = 'mock control endpoints: GET /__mock/stats, POST|DELETE /__mock/faults, POST /__mock/expire-tokens';

/** Adds the rules of a POST /__mock/faults body (one rule or an array); none when one of them is wrong. */
function addFaults(raw: Buffer | undefined, state: MockState): Reply {
  let value: unknown;
  try {
    value = JSON.parse(raw === undefined ? '' : raw.toString('utf8'));
  } catch {
    return fail(400, 'the body must be a JSON fault rule or an array of rules');
  }
  const rules: unknown[] = Array.isArray(value) ? value : [value];
  const full = state.faults.roomFor(rules.length);
  if (full !== undefined) return fail(400, `${full}; DELETE /__mock/faults removes them`);
  const checked = rules.map(checkFaultRule);
  const bad = checked.findIndex((c) => !c.ok);
  const problem = checked[bad];
  if (problem !== undefined && !problem.ok) return fail(400, Array.isArray(value) ? `/${bad}${problem.message}` : problem.message);
  for (const c of checked) if (c.ok) state.faults.add(c.rule);
  return ok(`${rules.length} fault rule${rules.length === 1 ? '' : 's'} added`, { active: state.faults.size });
}

/**
 * The answer of a control endpoint to a request whose body was read
 * (undefined when it could not be).
 *
 * @example
 * controlReply('GET', '/__mock/stats', undefined, state) //=> { status: 200, body: { success: true, message: 'stats', data: { ... } } }
 */
export function controlReply(method: string, path: string, raw: Buffer | undefined, state: MockState): Reply {
  if (path === '/__mock/stats' && method === 'GET') return ok('stats', state.stats());
  if (path === '/__mock/faults' && method === 'DELETE') {
    state.faults.clear();
    return ok('faults cleared', null);
  }
  if (path === '/__mock/faults' && method === 'POST') return addFaults(raw, state);
  if (path === '/__mock/expire-tokens' && method === 'POST') {
    state.expireTokens();
    return ok('every bearer token issued so far is now expired', null);
  }
  return fail(404, CONTROL_ENDPOINTS);
}
