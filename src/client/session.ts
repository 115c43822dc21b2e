/**
 * The ABHA session token (spec §5): returned by OTP verification, sent only in
 * the body field `token` of the two profile endpoints. Its own type keeps it
 * apart from the bearer token, which the client holds privately and never
 * hands out.
 */

declare const sessionTokenBrand: unique symbol;

/**
 * An ABHA session token. The client's verification methods return it typed;
 * a string from elsewhere becomes one through {@link asSessionToken}.
 *
 * @example
 * const session: SessionToken | undefined = (await client.verifyOtp({ scope, txnId, otp })).data?.token
 */
export type SessionToken = string & { readonly [sessionTokenBrand]: 'AbhaSessionToken' };

/**
 * Marks a string (a session token kept from an earlier verification) as a
 * {@link SessionToken}.
 *
 * @throws TypeError when the value is not a non-empty string
 * @example
 * await client.getProfile({ token: asSessionToken(storedToken) })
 */
export function asSessionToken(value: string): SessionToken {
  if (typeof value !== 'string' || value === '') throw new TypeError('a session token must be a non-empty string');
  return value as SessionToken;
}
