/**
 * Redaction of text that comes from the service before an error keeps it
 * (the `serviceMessage` getter; never the error's message, which reaches
 * logs). A real service may echo what it was sent. Pattern redaction cannot
 * recognise a name, a diagnosis or a drug, which is why the text is kept out
 * of messages, the journal and CLI output altogether. Runs of six or more digits
 * (mobiles, OTPs, ABHA numbers), anything around an `@` (ABHA addresses,
 * emails), JWT-shaped strings and the client's own secrets are replaced by
 * `[redacted]`; control characters are dropped (no log injection) and the
 * text is cut to 300 characters.
 */

const JWT_SHAPE = /\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.?[A-Za-z0-9_-]*/g;
const AT_WORD = /[^\s"'<>()[\]{},;]*@[^\s"'<>()[\]{},;]*/g;
const DIGIT_RUN = /\d(?:[\d -]{4,}\d)/g;
const LONG_TOKEN = /[A-Za-z0-9+/_=-]{40,}/g;
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** The longest service message kept, in characters. */
export const MAX_SERVICE_MESSAGE = 300;

/**
 * Redacts a service message (see the module comment).
 *
 * @param secrets - exact strings that must never appear (the API key, tokens)
 * @example
 * redactServiceMessage('OTP 123456 sent to 98XXXX1234 for asha@sbx', [])
 * //=> 'OTP [redacted] sent to 98XXXX1234 for [redacted]'
 */
export function redactServiceMessage(text: string, secrets: readonly string[]): string {
  let s = text;
  for (const secret of secrets) if (secret.length >= 4) s = s.split(secret).join('[redacted]');
  s = s
    .replace(CONTROL, ' ')
    .replace(JWT_SHAPE, '[redacted]')
    .replace(AT_WORD, '[redacted]')
    .replace(LONG_TOKEN, '[redacted]')
    .replace(DIGIT_RUN, (m) => (m.replace(/\D/g, '').length >= 6 ? '[redacted]' : m))
    .trim();
  return s.length > MAX_SERVICE_MESSAGE ? `${s.slice(0, MAX_SERVICE_MESSAGE - 1)}…` : s;
}
