/**
 * The keys that encrypt the queue's stored link requests at rest: AES-256-GCM
 * through node:crypto, a random 96-bit IV per body, the submission's id as
 * associated data (a body cannot be moved to another row), and a key id
 * stored beside each ciphertext so that keys can rotate.
 *
 * The keys come from `ABHA_LINK_SERVE_DATA_KEY` (base64 of 32 bytes; several
 * separated by commas or spaces, newest first) or from a key file (one
 * base64 key a line, newest first; `#` starts a comment), made on first
 * start when it is missing. The newest key encrypts; every key decrypts.
 * A key file must be private to its owner (0600) and outside the data
 * directory, so that a copy of the data directory never carries its key.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { link, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { QueueError } from './types.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const AAD_PREFIX = 'abha-link/submission-body/v1\0';

/** A sealed body: the id of the key that sealed it, and IV ‖ ciphertext ‖ tag in hex. */
export interface SealedBody {
  readonly keyId: string;
  readonly hex: string;
}

/** The queue's keys: the newest seals, any opens. */
export interface DataKeys {
  /** The ids of every key (the newest first): items sealed with another key are left to a replica that has it. */
  readonly ids: readonly string[];
  seal(id: string, plaintext: string): SealedBody;
  /** The plaintext, or undefined when the key is unknown or the body was altered. */
  open(id: string, body: SealedBody): string | undefined;
}

/** The id of a key: 16 hex digits of a hash of it (says nothing of the key). */
export const keyIdOf = (key: Uint8Array): string => createHash('sha256').update('abha-link data key id\0').update(key).digest('hex').slice(0, 16);

/**
 * The keys of `text`: base64 keys of 32 bytes, separated by commas, spaces
 * or lines, newest first; `#` comments and blank lines are skipped.
 *
 * @throws QueueError `invalid-data-key` naming `source` and the key's position (never the key)
 * @example
 * parseDataKeys('q8…=\n# the previous key\nZm…=', 'keys.txt').length //=> 2
 */
export function parseDataKeys(text: string, source: string): Buffer[] {
  const words = text
    .split('\n')
    .map((line) => line.replace(/#.*$/, ''))
    .join(' ')
    .split(/[\s,]+/)
    .filter((w) => w !== '');
  if (words.length === 0) throw new QueueError('invalid-data-key', `${source} holds no key: expected base64 of 32 random bytes (openssl rand -base64 32)`);
  return words.map((w, i) => {
    const key = Buffer.from(w, 'base64');
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(w) || key.length !== 32) {
      throw new QueueError('invalid-data-key', `${source}: key ${i + 1} is not base64 of 32 bytes (make one with: openssl rand -base64 32)`);
    }
    return key;
  });
}

/**
 * The queue's keys, newest first.
 *
 * @throws QueueError `invalid-data-key` for no key or a key that is not 32 bytes
 */
export function dataKeys(keys: readonly Uint8Array[]): DataKeys {
  if (keys.length === 0 || keys.some((k) => !(k instanceof Uint8Array) || k.length !== 32)) throw new QueueError('invalid-data-key', 'each data key must be 32 bytes');
  const byId = new Map(keys.map((k) => [keyIdOf(k), Buffer.from(k)] as const));
  const newest = Buffer.from(keys[0] as Uint8Array);
  const newestId = keyIdOf(newest);
  const aad = (id: string): Buffer => Buffer.from(AAD_PREFIX + id, 'utf8');
  return {
    ids: [...byId.keys()],
    seal(id, plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', newest, iv);
      cipher.setAAD(aad(id));
      const sealed = Buffer.concat([iv, cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return { keyId: newestId, hex: sealed.toString('hex') };
    },
    open(id, body) {
      const key = byId.get(body.keyId);
      const bytes = Buffer.from(body.hex, 'hex');
      if (key === undefined || bytes.length < IV_BYTES + TAG_BYTES) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
        decipher.setAAD(aad(id));
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}

/** The default key file of a data directory: beside it, never inside (`DIR.key`). */
export const defaultKeyFile = (dataDir: string): string => `${resolve(dataDir)}.key`;

const codeOf = (e: unknown): string => String((e as { code?: unknown } | null)?.code ?? 'unknown error');

/** Makes `file` with a new key, atomically (another process making it at once: one of the two keys wins, both read it). */
async function createKeyFile(file: string): Promise<boolean> {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const text = `# abha-link serve: the key of the queue's stored requests (AES-256-GCM). Keep it, back it up apart from the data.\n# To rotate: put a new key (openssl rand -base64 32) on the first line and keep the old ones below it.\n${randomBytes(32).toString('base64')}\n`;
  try {
    await writeFile(tmp, text, { flag: 'wx', mode: 0o600 });
    await link(tmp, file);
    return true;
  } catch (e) {
    if (codeOf(e) === 'EEXIST') return false;
    throw new QueueError('invalid-data-key', `cannot create the data key file ${file} (${codeOf(e)}); give --data-key-file FILE or set ABHA_LINK_SERVE_DATA_KEY`);
  } finally {
    await rm(tmp, { force: true });
  }
}

/**
 * Reads the key file `file`, making it (one new key, 0600) when missing.
 * Refuses a file inside `dataDir` or one that other users can read.
 *
 * @throws QueueError `invalid-data-key`
 */
export async function readKeyFile(file: string, dataDir: string): Promise<{ keys: Buffer[]; created: boolean }> {
  const inside = relative(resolve(dataDir), resolve(file));
  if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) {
    throw new QueueError('invalid-data-key', `the data key file ${file} is inside the data directory; keep it elsewhere (a copy of the data must not carry its key)`);
  }
  let created = false;
  try {
    await stat(file);
  } catch (e) {
    if (codeOf(e) !== 'ENOENT') throw new QueueError('invalid-data-key', `cannot read the data key file ${file} (${codeOf(e)})`);
    try {
      await stat(dirname(resolve(file)));
    } catch {
      throw new QueueError('invalid-data-key', `the folder of the data key file ${file} does not exist`);
    }
    created = await createKeyFile(file);
  }
  let info;
  try {
    info = await stat(file);
  } catch (e) {
    throw new QueueError('invalid-data-key', `cannot read the data key file ${file} (${codeOf(e)})`);
  }
  if (!info.isFile()) throw new QueueError('invalid-data-key', `the data key file ${file} is not a file`);
  if ((info.mode & 0o077) !== 0 && process.platform !== 'win32') {
    throw new QueueError('invalid-data-key', `the data key file ${file} can be read by other users; restrict it: chmod 600 ${file}`);
  }
  const text = await readFile(file, 'utf8').catch((e: unknown) => {
    throw new QueueError('invalid-data-key', `cannot read the data key file ${file} (${codeOf(e)})`);
  });
  return { keys: parseDataKeys(text, file), created };
}

/**
 * The keys of `abha-link serve`: `ABHA_LINK_SERVE_DATA_KEY` when set, else
 * the key file (`--data-key-file`, default `DIR.key` beside the data
 * directory), made when missing; `warn` tells the operator where.
 *
 * @throws QueueError `invalid-data-key`
 */
export async function serveDataKeys(options: {
  readonly env: string | undefined;
  readonly file: string | undefined;
  readonly dataDir: string;
  readonly warn: (message: string) => void;
}): Promise<Buffer[]> {
  if (options.env !== undefined && options.env.trim() !== '') {
    if (options.file !== undefined) throw new QueueError('invalid-data-key', 'give the data key either in ABHA_LINK_SERVE_DATA_KEY or with --data-key-file, not both');
    return parseDataKeys(options.env, 'ABHA_LINK_SERVE_DATA_KEY');
  }
  const file = options.file ?? defaultKeyFile(options.dataDir);
  const { keys, created } = await readKeyFile(file, options.dataDir);
  if (created) options.warn(`made a new data key in ${file} (mode 0600): it encrypts the queued requests; back it up apart from the data, and give every server sharing a database the same key`);
  return keys;
}
