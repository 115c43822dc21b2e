/**
 * Writing output files for `abha-link render` and `abha-link fhir`: one
 * rule for both. A file is created only if nothing is at its name (O_EXCL,
 * and O_NOFOLLOW where the system has it), so a symbolic link planted at the
 * name is never written through and an earlier document is never
 * overwritten. In a directory the next free name (`REF-2.html`, `REF-3.html`…)
 * is taken; a file named with -o is refused. With `--force` the new content
 * goes to a fresh temporary file beside it that is then renamed over the
 * name: that replaces a file or a link itself, never what a link points at,
 * nor another name of a hard-linked file.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { UsageError, cliIo, writeOut } from './io.js';

const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
/** How many names (`REF.html`, `REF-2.html` … `REF-1000.html`) are tried in a directory before giving up. */
const MAX_NAMES = 1000;

/** What became of one document. */
export interface WrittenFile {
  /** The path written. */
  readonly path: string;
  /** The name it was meant to have, when something was already there and another name was taken. */
  readonly instead?: string;
}

/** Creates `path` holding `body`, or returns false when something (a file, a link, a directory) is already at that name. */
async function createExclusive(path: string, body: string | Uint8Array): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, CREATE_NEW, 0o666);
  } catch (e) {
    // ELOOP: O_NOFOLLOW met a link (systems that check it before O_EXCL).
    const code = (e as { code?: string }).code;
    if (code === 'EEXIST' || code === 'ELOOP') return false;
    throw e;
  }
  try {
    await handle.writeFile(body);
    await handle.close();
  } catch (e) {
    await handle.close().catch(() => undefined);
    // The file is ours (created just now): a half-written document goes.
    await unlink(path).catch(() => undefined);
    throw e;
  }
  return true;
}

/** Writes `body` to a new temporary file beside `path` and renames it over `path`: a link there is replaced, not followed. */
async function replaceFile(path: string, body: string | Uint8Array): Promise<void> {
  let temp: string;
  do temp = join(dirname(path), `.${basename(path).slice(0, 120)}.${randomBytes(6).toString('hex')}.tmp`);
  while (!(await createExclusive(temp, body)));
  try {
    await rename(temp, path);
  } catch (e) {
    await unlink(temp).catch(() => undefined);
    throw e;
  }
}

function reason(e: unknown): string {
  const code = (e as { code?: string }).code;
  if (code === 'ENOENT') return 'no such directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR' || code === 'ENOTEMPTY' || code === 'EEXIST') return 'is a directory';
  if (code === 'ENOSPC') return 'no space left on the device';
  return code ?? 'error';
}

const cannotWrite = (path: string, e: unknown): UsageError => new UsageError(`${path}: cannot be written (${reason(e)})`);

/** What is at `path` and stopped a new file there, in words. */
async function occupant(path: string): Promise<string> {
  try {
    const s = await lstat(path);
    if (s.isSymbolicLink()) return 'is a symbolic link; not written through it';
    if (s.isDirectory()) return 'is a directory';
    return 'already exists; not overwritten';
  } catch {
    return 'already exists; not overwritten';
  }
}

/**
 * Writes the one document of `-o FILE`: a new file, or with `force` a
 * replacement of whatever file or link is at that name.
 *
 * @throws UsageError (exit 2) naming the file when something is already there without `force`, or it cannot be written
 * @example
 * await writeOutputFile('rx.html', html, { force: false }) // rx.html existed: "rx.html: already exists; not overwritten (give --force to replace it)"
 */
export async function writeOutputFile(path: string, body: string | Uint8Array, options: { readonly force: boolean }): Promise<WrittenFile> {
  try {
    if (options.force) await replaceFile(path, body);
    else if (!(await createExclusive(path, body))) {
      const what = await occupant(path);
      throw new UsageError(what === 'is a directory' ? `${path}: is a directory; give the path of a file` : `${path}: ${what} (give --force to replace it, or another name)`);
    }
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw cannotWrite(path, e);
  }
  return { path };
}

/**
 * Writes documents into `dir` as `STEM.EXT`. Without `force`, a name that is
 * taken (by an earlier document, a link, anything) is left alone and the
 * next free name `STEM-2.EXT`, `STEM-3.EXT`… is used; with `force`, the
 * file or link at `STEM.EXT` is replaced. Calls `onWritten` after each file,
 * so that a caller can list what was written even when a later file fails.
 *
 * @throws UsageError (exit 2) naming the file that cannot be written
 * @example
 * await writeOutputFiles('printed', [{ stem: 'OPD-2026-0042-Prescription', ext: 'html', body: html }], { force: false }, (w) => console.log(w.path))
 * // printed/OPD-2026-0042-Prescription-2.html when the first name was taken
 */
export async function writeOutputFiles(
  dir: string,
  files: ReadonlyArray<{ readonly stem: string; readonly ext: string; readonly body: string | Uint8Array }>,
  options: { readonly force: boolean },
  onWritten: (written: WrittenFile) => void,
): Promise<void> {
  for (const f of files) {
    const wanted = join(dir, `${f.stem}.${f.ext}`);
    let path = wanted;
    try {
      if (options.force) await replaceFile(path, f.body);
      else {
        let n = 1;
        while (!(await createExclusive(path, f.body))) {
          if (++n > MAX_NAMES) throw new UsageError(`${wanted}: this name and the next ${MAX_NAMES - 1} (${f.stem}-2.${f.ext}…) are taken; give --force to replace it, or another --out DIR`);
          path = join(dir, `${f.stem}-${n}.${f.ext}`);
        }
      }
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw cannotWrite(path, e);
    }
    onWritten(path === wanted ? { path } : { path, instead: wanted });
  }
}

/**
 * The files of `--out DIR`, as `render` and `fhir` write them: through
 * {@link writeOutputFiles}, listing on stdout every path written (also when
 * a later file fails) and saying on stderr when a name was taken.
 *
 * @throws UsageError (exit 2) naming the file that cannot be written
 * @example
 * await writeListedFiles('printed', [{ stem: 'OPD-2026-0042-Prescription', ext: 'html', body: html }], false)
 * // stdout: printed/OPD-2026-0042-Prescription.html
 */
export async function writeListedFiles(dir: string, files: Parameters<typeof writeOutputFiles>[1], force: boolean): Promise<void> {
  let list = '';
  const onWritten = (w: WrittenFile): void => {
    if (w.instead !== undefined) cliIo().stderr.write(`abha-link: ${w.instead} is taken, so the document went to ${w.path} (--force replaces instead)\n`);
    list += `${w.path}\n`;
  };
  try {
    await writeOutputFiles(dir, files, { force }, onWritten);
  } finally {
    await writeOut(list);
  }
}
